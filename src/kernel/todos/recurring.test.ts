import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo, killTodo, shipTodo } from './todos';
import { claimTodo } from './claims';
import { spendQuota } from '../goals/quota';
import { nextClaimable, readiness, listTodos } from './todoQueries';
import { shouldRun } from '../goals/quotaQueries';
import { nextOccurrence, parseRecurrence } from './recurrence';
import { verifyChain } from '../events/verify';
import { checkReplay } from '../replay';
import { iso } from '../time';
import { getGoal } from '../goals/goalQueries';

let s: TestStore;
const codex = agent('codex');
let goalId: string;
beforeEach(() => {
  s = makeStore(); // the fake clock starts at 2026-01-01T00:00:00Z, a Thursday
  goalId = createGoal(s.kernel, { title: 'Reports', turnsPerWindow: 2 }).id;
});
afterEach(() => s.dispose());

const at = (text: string) => {
  s.clock.ms = Date.parse(text);
};
const now = () => iso(s.clock.ms);
const ship = (id: string) => {
  claimTodo(s.as(codex), id);
  return shipTodo(s.as(codex), id, { evidence: 'report sent' });
};
const successor = (id: string) => listTodos(s.kernel.db, now(), { goalId }).find((t) => t.previousId === id);

describe('recurring todos', () => {
  test('daily at 09:00: each occurrence waits until its time; the next follows a ship or a kill; missed days are skipped', () => {
    const first = addTodo(s.kernel, { goalId, title: 'Daily report', priority: 1, recurrence: { every: 86400, at: '09:00', tz: 'UTC' } });
    expect(first).toMatchObject({
      readyAt: '2026-01-01T09:00:00.000Z',
      recurrence: { every: 86400, at: '09:00', tz: 'UTC', text: 'daily at 09:00 (UTC)' },
      previousId: null,
    });
    // Waiting until its time: not ready, not claimable, and should-run wakes exactly then.
    expect(readiness(s.kernel.db, first, now())).toMatchObject({
      ready: false,
      why: 'scheduled',
      detail: expect.stringContaining('2026-01-01T09:00'),
    });
    expect(nextClaimable(s.kernel.db, now())).toBeNull();
    expect(() => claimTodo(s.as(codex), first.id)).toThrow(expect.objectContaining({ code: 'not_ready' }));
    expect(shouldRun(s.kernel.db, getGoal(s.kernel.db, goalId), s.clock.ms)).toMatchObject({
      reason: 'no_ready_work',
      nextWakeAt: '2026-01-01T09:00:00.000Z',
    });
    at('2026-01-01T09:00:00Z');
    expect(nextClaimable(s.kernel.db, now())?.id).toBe(first.id);
    at('2026-01-01T10:30:00Z');
    ship(first.id);
    const second = successor(first.id);
    expect(second).toMatchObject({
      title: 'Daily report',
      priority: 1,
      status: 'open',
      readyAt: '2026-01-02T09:00:00.000Z',
      previousId: first.id,
    });
    const added = s.kernel.db.prepare(`SELECT actor, data FROM events WHERE kind = 'todo.added' AND todo_id = ?`).get(second?.id ?? '');
    expect(added?.actor).toBe('kernel');
    expect(JSON.parse(String(added?.data))).toMatchObject({ previous: first.id, readyAt: '2026-01-02T09:00:00.000Z' });
    // Killed days later: the next one is tomorrow, not one per missed day.
    at('2026-01-04T12:00:00Z');
    killTodo(s.kernel, second?.id as string, 'nobody read it');
    const third = successor(second?.id as string);
    expect(third?.readyAt).toBe('2026-01-05T09:00:00.000Z');
    // Ending the series on purpose.
    killTodo(s.kernel, third?.id as string, 'no more reports', { endSeries: true });
    expect(successor(third?.id as string)).toBeUndefined();
    expect(verifyChain(s.kernel.db).ok).toBe(true);
    expect(checkReplay(s.kernel.db).differences).toEqual([]);
  });

  test('times of day are read in the recorded time zone, across a daylight-saving change', () => {
    at('2026-03-06T12:00:00Z');
    const first = addTodo(s.kernel, { goalId, title: 'Standup notes', recurrence: { every: 86400, at: '09:00', tz: 'America/New_York' } });
    expect(first.readyAt).toBe('2026-03-06T14:00:00.000Z'); // 09:00 EST
    at('2026-03-06T15:00:00Z');
    ship(first.id);
    const second = successor(first.id);
    expect(second?.readyAt).toBe('2026-03-07T14:00:00.000Z');
    at('2026-03-07T15:00:00Z');
    ship(second?.id as string);
    expect(successor(second?.id as string)?.readyAt).toBe('2026-03-08T13:00:00.000Z'); // 09:00 EDT
  });

  test('every 2 days keeps its rhythm; a plain interval is due at once and then every interval', () => {
    const two = addTodo(s.kernel, { goalId, title: 'Backups check', recurrence: { every: 2 * 86400, at: '06:30', tz: 'UTC' } });
    expect(two.readyAt).toBe('2026-01-01T06:30:00.000Z');
    at('2026-01-01T07:00:00Z');
    ship(two.id);
    expect(successor(two.id)?.readyAt).toBe('2026-01-03T06:30:00.000Z');
    const hourly = addTodo(s.kernel, { goalId, title: 'Triage', recurrence: { every: 2 * 3600 } });
    expect(hourly.readyAt).toBeNull();
    expect(hourly.recurrence).toMatchObject({ every: 7200, text: 'every 2h' });
    at('2026-01-01T07:30:00Z');
    ship(hourly.id);
    expect(successor(hourly.id)?.readyAt).toBe('2026-01-01T09:00:00.000Z'); // added 07:00, so 09:00
  });

  test('a cron schedule: weekdays at 09:00', () => {
    const first = addTodo(s.kernel, { goalId, title: 'Dependency updates', recurrence: { cron: '0 9 * * 1-5', tz: 'UTC' } });
    expect(first).toMatchObject({
      readyAt: '2026-01-01T09:00:00.000Z',
      recurrence: { cron: '0 9 * * 1-5', text: 'cron 0 9 * * 1-5 (UTC)' },
    });
    at('2026-01-02T10:00:00Z'); // Friday, after its slot
    ship(first.id);
    expect(successor(first.id)?.readyAt).toBe('2026-01-05T09:00:00.000Z'); // Monday
  });

  test('quota still decides whether a turn runs; occurrences never run past the budget', () => {
    addTodo(s.kernel, { goalId, title: 'Hourly', recurrence: { every: 3600 } });
    spendQuota(s.as(codex), goalId, 'r1');
    spendQuota(s.as(codex), goalId, 'r2');
    expect(shouldRun(s.kernel.db, getGoal(s.kernel.db, goalId), s.clock.ms)).toMatchObject({ run: false, reason: 'budget_exhausted' });
  });

  test('bad schedules are refused and change nothing', () => {
    const events = () => Number(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n);
    const before = events();
    for (const recurrence of [
      { cron: '61 * * * *' },
      { cron: 'every day' },
      { cron: '0 9 * * 1-5 2026' },
      { cron: '' },
      { every: 86400, cron: '@daily' },
      { at: '09:00' },
      { every: 3600, at: '09:00' },
      { every: 86400, at: '9am' },
      { every: 86400, at: '24:00' },
      { every: 30 },
      { every: 86400, tz: 'Mars/Olympus_Mons' },
      { cron: '@daily', at: '09:00' },
    ]) {
      expect(() => addTodo(s.kernel, { goalId, title: 'x', recurrence })).toThrow(
        expect.objectContaining({ code: 'invalid_input', exitCode: 2 }),
      );
    }
    expect(events()).toBe(before);
  });
});

describe('nextOccurrence', () => {
  test('skips slots missed while an occurrence stayed open, and is always after now', () => {
    const rec = parseRecurrence({ every: 3600, tz: 'UTC' });
    const base = Date.parse('2026-01-01T00:00:00Z');
    expect(iso(nextOccurrence(rec!, base, base + 10 * 60_000) as number)).toBe('2026-01-01T01:00:00.000Z');
    expect(iso(nextOccurrence(rec!, base, base + 5 * 3600_000 + 1) as number)).toBe('2026-01-01T06:00:00.000Z');
  });
});

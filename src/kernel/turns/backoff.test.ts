import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo } from '../todos/todos';
import { releaseTodo } from '../todos/claims';
import { addEvidence } from '../evidence/evidence';
import { addMonitor } from '../monitors/monitors';
import { startTurn } from './turns';
import { finishTurn } from './turnFinish';
import { planTurn } from '../goals/quotaQueries';
import { BACKOFF_BASE_SECONDS, BACKOFF_MAX_SECONDS, recentRetries } from './backoff';
import { statusReport } from '../readModels/status';
import { renderStatusMd } from '../../runtime/projections/statusMd';
import { iso } from '../time';
import { getGoal } from '../goals/goalQueries';

let s: TestStore;
let goalId: string;
const codex = agent('codex');
beforeEach(() => {
  s = makeStore();
  goalId = createGoal(s.kernel, { title: 'Nightly', turnsPerWindow: 100 }).id;
});
afterEach(() => s.dispose());

const add = (title: string) => addTodo(s.kernel, { goalId, title }).id;
const plan = () => planTurn(s.kernel.db, getGoal(s.kernel.db, goalId), s.clock.ms);
/** One turn on the todo a turn start takes, ended as `how` says; returns the turn's todo. */
function turn(how: 'crash' | 'nothing' | 'progress' | 'release', todoId?: string): string {
  const started = startTurn(s.kernel, { goalId, host: 'custom', agent: 'codex', todoId }).turn;
  const todo = started.todoId as string;
  if (how === 'progress') addEvidence(s.as(codex), { todoId: todo, summary: 'half way' });
  if (how === 'release') releaseTodo(s.as(codex), todo, { note: 'not now' });
  finishTurn(s.kernel, started.id, how === 'crash' ? 137 : 0);
  return todo;
}

describe('after a turn without progress only its own todo waits', () => {
  test('a crash holds back the todo it ran on; the other ready todos run at once', () => {
    const [t1, t2, t3] = [add('a'), add('b'), add('c')];
    expect(turn('crash')).toBe(t1);
    expect(plan()).toMatchObject({ answer: { run: true, reason: 'ok' }, todoId: t2 });
    expect(turn('progress')).toBe(t2);
    expect(plan().todoId).toBe(t2); // progress: no wait, and it is first in claim order after t1
    s.clock.advance(BACKOFF_BASE_SECONDS);
    expect(plan().todoId).toBe(t1);
    expect(t3).toBeDefined();
  });

  test('a todo a person added while the failing turn ran is taken at once', () => {
    const t1 = add('a');
    const started = startTurn(s.kernel, { goalId, host: 'custom', agent: 'codex' }).turn;
    const added = add('added meanwhile');
    finishTurn(s.kernel, started.id, 1);
    expect(plan()).toMatchObject({ answer: { run: true, reason: 'ok' }, todoId: added });
    expect(started.todoId).toBe(t1);
  });

  test('when every ready todo waits: no_change with the first retry as its wake time (route wait), then it runs', () => {
    add('only');
    const ended = s.clock.ms;
    turn('nothing');
    expect(plan().answer).toEqual({
      run: false,
      reason: 'no_change',
      nextWakeAt: iso(ended + BACKOFF_BASE_SECONDS * 1000),
      remaining: 100,
    });
    expect(() => startTurn(s.kernel, { goalId, host: 'custom', agent: 'codex' })).toThrow(
      expect.objectContaining({ code: 'should_not_run', data: expect.objectContaining({ route: 'wait', reason: 'no_change' }) }),
    );
    s.clock.advance(BACKOFF_BASE_SECONDS - 1);
    expect(plan().answer.reason).toBe('no_change');
    s.clock.advance(1);
    expect(plan()).toMatchObject({ answer: { run: true, reason: 'ok' } });
  });

  test('when several ready todos wait: the wake time is the soonest retry of any, not the first todo’s', () => {
    const [t1, t2] = [add('a'), add('b')];
    turn('crash', t1);
    s.clock.advance(BACKOFF_BASE_SECONDS);
    turn('crash', t1); // its second failure in a row: it waits twice as long
    const now = s.clock.ms;
    turn('crash', t2);
    expect(plan().answer).toMatchObject({ run: false, reason: 'no_change', nextWakeAt: iso(now + BACKOFF_BASE_SECONDS * 1000) });
    s.clock.advance(BACKOFF_BASE_SECONDS);
    expect(plan()).toMatchObject({ answer: { run: true }, todoId: t2 });
  });

  test('the wait doubles with each failure in a row, up to an hour; a turn with progress starts it over', () => {
    const todo = add('flaky');
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      turn(i % 2 ? 'crash' : 'release', todo); // a release without a word is a failure too
      const wake = plan().answer.nextWakeAt as string;
      waits.push((Date.parse(wake) - s.clock.ms) / 1000);
      s.clock.ms = Date.parse(wake);
    }
    expect(waits).toEqual([60, 120, 240, 480, 960, 1920, BACKOFF_MAX_SECONDS, BACKOFF_MAX_SECONDS, BACKOFF_MAX_SECONDS]);
    turn('progress', todo);
    turn('crash', todo);
    expect((Date.parse(plan().answer.nextWakeAt as string) - s.clock.ms) / 1000).toBe(60);
  });

  test('a change to the todo ends its wait at once: a person’s note, a monitor that fires; its routine checks do not', () => {
    const todo = add('flaky');
    turn('crash');
    expect(plan().answer.reason).toBe('no_change');
    addEvidence(s.kernel, { todoId: todo, summary: 'installed the missing tool; try again' });
    expect(plan()).toMatchObject({ answer: { run: true }, todoId: todo });
  });

  test('handing the todo to a monitor, asking a gate or blocking are no failures', () => {
    const todo = add('deploy');
    const started = startTurn(s.kernel, { goalId, host: 'custom', agent: 'codex' }).turn;
    addMonitor(s.as(codex), { todoId: todo, afterSeconds: 60 });
    finishTurn(s.kernel, started.id, 0);
    expect(recentRetries(s.kernel.db, s.clock.ms)).toMatchObject([{ todoId: todo, result: 'wait', failures: 0 }]);
  });
});

describe('a person is told when a todo keeps failing', () => {
  test('after three failures in a row: status, STATUS.md, with the last result and the next try', () => {
    const todo = add('flaky');
    add('fine');
    for (let i = 0; i < 2; i++) {
      turn('crash', todo);
      s.clock.advance(BACKOFF_MAX_SECONDS);
    }
    expect(statusReport(s.kernel.db, s.clock.ms).failing).toEqual([]);
    turn('crash', todo);
    const report = statusReport(s.kernel.db, s.clock.ms);
    expect(report.failing).toMatchObject([
      { todoId: todo, goalId, failures: 3, result: 'host_failure', exitCode: 137, retryAt: iso(s.clock.ms + 240_000), title: 'flaky' },
    ]);
    expect(renderStatusMd(report)).toMatch(
      /- Keeps failing T1 flaky: 3 turns in a row made no progress \(the last: the agent exited with code 137\); next try 2026-/,
    );
    turn('progress', todo);
    expect(statusReport(s.kernel.db, s.clock.ms).failing).toEqual([]);
  });
});

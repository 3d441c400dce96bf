import { afterEach, describe, expect, test } from 'vitest';
import { agent, human, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo, blockTodo, unblockTodo, shipTodo } from '../todos/todos';
import { askGate, decideGate } from '../gates/gates';
import { claimTodo } from '../todos/claims';
import { addMonitor } from '../monitors/monitors';
import { settleDue } from '../monitors/tickSteps';
import { offerHandoff } from '../handoffs/handoffs';
import { startTurn } from '../turns/turns';
import { finishTurn } from '../turns/turnFinish';
import { goalStory, storyReader } from './story';
import type { StoryDay } from '../../shared/storyTypes';

let store: TestStore;
afterEach(() => store?.dispose());

const H = 3600_000;
const LONG = { leaseSeconds: 12 * 3600 };

/**
 * Two days of a goal, scripted hour by hour on a fake clock (from 2026-01-01 00:00 UTC):
 * T1 queued 1 h, worked 1 h, waited 3 h on gate Q1, worked 1 h, shipped at 06:00;
 * T2 queued 6 h, worked 0.5 h, waited 2 h on a timer monitor, then queued; a turn on day 2 10:00–10:30 failed;
 * T3 queued 7 h, blocked from 07:00 to day 2 09:00, then queued. Now: day 2 12:00.
 */
function scriptedHistory(s: TestStore) {
  const codex = s.as(agent('codex'));
  const at = (hours: number) => (s.clock.ms = Date.parse('2026-01-01T00:00:00.000Z') + hours * H);
  const goalId = createGoal(s.kernel, { title: 'Ship the CSV importer' }).id;
  const [t1, t2, t3] = ['Parse quoted fields', 'Wait for the release build', 'Import from S3'].map(
    (title) => addTodo(s.kernel, { goalId, title }).id,
  );
  at(1);
  claimTodo(codex, t1 as string, LONG);
  at(2);
  askGate(codex, { todoId: t1, question: 'Drop the legacy importer?' });
  at(5);
  decideGate(s.as(human), 'Q1', 'approved', 'yes');
  at(6);
  shipTodo(codex, t1 as string, { evidence: 'quoted fixtures pass' });
  claimTodo(codex, t2 as string, LONG);
  at(6.5);
  addMonitor(codex, { todoId: t2 as string, afterSeconds: 2 * 3600, note: 'release build 311' });
  at(7);
  claimTodo(codex, t3 as string, LONG);
  blockTodo(codex, t3 as string, 'needs S3 credentials');
  at(8.5);
  settleDue(s.kernel);
  at(33);
  unblockTodo(s.as(human), t3 as string, 'credentials in the vault');
  at(34);
  const turn = startTurn(codex, { goalId, host: 'codex', todoId: t2 }).turn;
  at(34.5);
  finishTurn(codex, turn.id, 3);
  at(36);
  return { goalId, t1, t2, t3, turnId: turn.id };
}

const hours = (d: StoryDay | undefined) =>
  d && Object.fromEntries(Object.entries(d.time).map(([k, v]) => [k, Math.round((v / H) * 100) / 100]));

describe('a goal story from a real store', () => {
  test('days, time split, totals and the gate wait follow the scripted history', () => {
    store = makeStore();
    const { goalId } = scriptedHistory(store);
    const story = goalStory(store.kernel.db, goalId, store.clock.ms);
    expect(story.days.map((d) => d.day)).toEqual(['2026-01-01', '2026-01-02']);
    // Day 1: T1 1 h queued, 2 h working, 3 h on the gate; T2 6 + 15.5 h queued, 0.5 h working, 2 h on the monitor;
    // T3 7 h queued, 17 h blocked. Day 2: T2 10 + 1.5 h queued, 0.5 h in the failed turn; T3 9 h blocked, 3 h queued.
    expect(hours(story.days[0])).toEqual({ queued: 29.5, working: 2.5, person: 20, world: 2 });
    expect(hours(story.days[1])).toEqual({ queued: 14.5, working: 0.5, person: 9, world: 0 });
    expect(story.days[0]).toMatchObject({ added: 3, shipped: 1, killed: 0, turns: 0, cost: null });
    expect(story.days[1]).toMatchObject({ shipped: 0, turns: 1, turnsFailed: 1, spent: 0 });
    expect(story.totals).toMatchObject({
      todos: 3,
      open: 2,
      shipped: 1,
      blocked: 0,
      turns: 1,
      turnsFailed: 1,
      gatesAsked: 1,
      gatesPending: 0,
      medianGateWaitMs: 3 * H,
      monitors: 1,
      cost: null,
    });
    expect(story.cost.available).toBe(false);
    expect(story.range).toEqual({ from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T12:00:00.000Z' });
  });

  test('the timeline has each span with its start and end, in the order things started, with titles', () => {
    store = makeStore();
    const { goalId, t1, t2, t3, turnId } = scriptedHistory(store);
    const story = goalStory(store.kernel.db, goalId, store.clock.ms);
    expect(story.timeline).toEqual([
      expect.objectContaining({
        kind: 'gate',
        id: 'Q1',
        todoId: t1,
        start: '2026-01-01T02:00:00.000Z',
        end: '2026-01-01T05:00:00.000Z',
        status: 'approved',
        decidedBy: 'ada',
      }),
      { kind: 'ship', todoId: t1, at: '2026-01-01T06:00:00.000Z', by: 'codex' },
      expect.objectContaining({
        kind: 'monitor',
        id: 'M1',
        todoId: t2,
        start: '2026-01-01T06:30:00.000Z',
        end: '2026-01-01T08:30:00.000Z',
        status: 'fired',
      }),
      expect.objectContaining({ kind: 'block', todoId: t3, reason: 'needs S3 credentials', end: '2026-01-02T09:00:00.000Z' }),
      expect.objectContaining({
        kind: 'turn',
        id: turnId,
        todoId: t2,
        agent: 'codex',
        result: 'host_failure',
        end: '2026-01-02T10:30:00.000Z',
      }),
    ]);
    expect(story.titles).toEqual({
      [t1 as string]: 'Parse quoted fields',
      [t2 as string]: 'Wait for the release build',
      [t3 as string]: 'Import from S3',
    });
  });

  test('the burn-down steps down as work ships and ends at now', () => {
    store = makeStore();
    const { goalId } = scriptedHistory(store);
    const story = goalStory(store.kernel.db, goalId, store.clock.ms);
    expect(story.burndown.map((p) => [p.at.slice(11, 16), p.open, p.done])).toEqual([
      ['00:00', 1, 0],
      ['00:00', 2, 0],
      ['00:00', 3, 0],
      ['06:00', 2, 1],
      ['12:00', 2, 1],
    ]);
  });

  test('open spans run to now; a handoff offered and not yet accepted is open', () => {
    store = makeStore();
    const codex = store.as(agent('codex'));
    const goalId = createGoal(store.kernel, { title: 'G' }).id;
    const t = addTodo(store.kernel, { goalId, title: 'Half done' }).id;
    claimTodo(codex, t);
    offerHandoff(codex, t, { to: 'claude', summary: 'parser done', done: 'parser', pending: 'tests' });
    askGate(codex, { goalId, question: 'Ship on Friday?' });
    store.clock.advance(3600);
    const story = goalStory(store.kernel.db, goalId, store.clock.ms);
    expect(story.timeline).toEqual([
      expect.objectContaining({ kind: 'handoff', from: 'codex', to: 'claude', end: null }),
      expect.objectContaining({ kind: 'gate', todoId: null, end: null, status: 'pending' }),
    ]);
    expect(story.totals.gatesPending).toBe(1);
  });

  test('a viewer east of UTC sees the same events on their own days', () => {
    store = makeStore();
    const { goalId } = scriptedHistory(store);
    const story = goalStory(store.kernel.db, goalId, store.clock.ms, 14 * 60);
    // 14 h east: everything from 10:00 UTC on day 1 falls on 2026-01-02 local; now (day 2 12:00 UTC) is 01-03 02:00.
    expect(story.days.map((d) => d.day)).toEqual(['2026-01-01', '2026-01-02', '2026-01-03']);
    expect(story.days.reduce((n, d) => n + d.shipped, 0)).toBe(1);
    const total = (d: StoryDay) => Object.values(d.time).reduce((a, b) => a + b, 0);
    // T1 lived 6 h, T2 and T3 36 h each: every hour is counted once, whatever the days.
    expect(story.days.map(total).reduce((a, b) => a + b, 0)).toBe(78 * H);
  });

  test('read in pieces (as the view refreshes), the story equals one read of the whole log', () => {
    store = makeStore();
    const goalId = createGoal(store.kernel, { title: 'Pieces' }).id;
    const reader = storyReader(goalId);
    const codex = store.as(agent('codex'));
    const reads: number[] = [];
    for (let i = 0; i < 6; i++) {
      const t = addTodo(store.kernel, { goalId, title: `Step ${i}` }).id;
      store.clock.advance(1800);
      claimTodo(codex, t, LONG);
      if (i % 2) askGate(codex, { todoId: t, question: `May I do ${i}?` });
      else shipTodo(codex, t, { evidence: 'done' });
      store.clock.advance(3600);
      reads.push(reader.read(store.kernel.db));
    }
    decideGate(store.as(human), 'Q1', 'rejected');
    reads.push(reader.read(store.kernel.db));
    expect(reads.every((n) => n > 0)).toBe(true);
    expect(reader.read(store.kernel.db)).toBe(0);
    store.clock.advance(7200);
    const whole = goalStory(store.kernel.db, goalId, store.clock.ms);
    expect(reader.build(store.kernel.db, store.clock.ms)).toEqual(whole);
    // Building again later adds the waiting time up to then, and changes nothing that was read.
    store.clock.advance(3600);
    expect(reader.build(store.kernel.db, store.clock.ms)).toEqual(goalStory(store.kernel.db, goalId, store.clock.ms));
  });
});

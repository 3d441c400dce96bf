import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal, setGoalStatus } from './goals';
import { addTodo, shipTodo } from '../todos/todos';
import { claimTodo, releaseTodo } from '../todos/claims';
import { askGate, decideGate } from '../gates/gates';
import { spendQuota } from './quota';
import { quotaState, shouldRun } from './quotaQueries';
import { startTurn } from '../turns/turns';
import { finishTurn } from '../turns/turnFinish';
import { addEvidence } from '../evidence/evidence';
import { statusReport } from '../readModels/status';
import { TURN_END_GRACE_SECONDS, WIND_DOWN_SECONDS } from '../turns/turnSlots';
import { iso } from '../time';
import { getGoal } from './goalQueries';

let s: TestStore;
const codex = agent('codex');
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

function goalWith(policy: { turnsPerWindow?: number; windowHours?: number; maxConcurrent?: number; cooldownSeconds?: number }) {
  return createGoal(s.kernel, { title: 'g', ...policy }).id;
}
const answer = (goalId: string) => shouldRun(s.kernel.db, getGoal(s.kernel.db, goalId), s.clock.ms);

describe('should-run', () => {
  test('ok when the goal is active, work is ready and budget remains; it never spends', () => {
    const g = goalWith({ turnsPerWindow: 3 });
    addTodo(s.kernel, { goalId: g, title: 't' });
    expect(answer(g)).toEqual({ run: true, reason: 'ok', nextWakeAt: null, remaining: 3 });
    expect(answer(g).remaining).toBe(3);
  });

  test('goal_inactive outranks everything and waits for a human', () => {
    const g = goalWith({ turnsPerWindow: 0 });
    setGoalStatus(s.kernel, g, 'paused');
    expect(answer(g)).toEqual({ run: false, reason: 'goal_inactive', nextWakeAt: null, remaining: 0 });
  });

  test('no_ready_work wakes when a live lease would lapse, or never', () => {
    const g = goalWith({});
    expect(answer(g)).toMatchObject({ reason: 'no_ready_work', nextWakeAt: null });
    const t = addTodo(s.kernel, { goalId: g, title: 't' }).id;
    claimTodo(s.as(codex), t, { leaseSeconds: 600 });
    expect(answer(g)).toMatchObject({ reason: 'no_ready_work', nextWakeAt: iso(s.clock.ms + 600_000) });
  });

  test('gate_pending for a goal-level gate, cleared by a decision', () => {
    const g = goalWith({});
    addTodo(s.kernel, { goalId: g, title: 't' });
    const gate = askGate(s.as(codex), { goalId: g, question: 'spend money?' });
    expect(answer(g)).toMatchObject({ run: false, reason: 'gate_pending', nextWakeAt: null });
    decideGate(s.kernel, gate.id, 'rejected', 'no');
    expect(answer(g).reason).toBe('ok');
  });

  test('budget_exhausted until the oldest spend leaves the sliding window', () => {
    const g = goalWith({ turnsPerWindow: 2, windowHours: 1 });
    addTodo(s.kernel, { goalId: g, title: 't' });
    spendQuota(s.as(codex), g, 'turn-1');
    const firstSpend = s.clock.ms;
    s.clock.advance(600);
    spendQuota(s.as(codex), g, 'turn-2');
    expect(answer(g)).toEqual({
      run: false,
      reason: 'budget_exhausted',
      budget: 'turns',
      nextWakeAt: iso(firstSpend + 3600_000),
      remaining: 0,
    });
    s.clock.ms = firstSpend + 3600_000;
    expect(answer(g)).toMatchObject({ run: true, reason: 'ok', remaining: 1 });
  });

  test('concurrency_limit while max concurrent claims are live, waking when one lapses', () => {
    const g = goalWith({ maxConcurrent: 1 });
    const a = addTodo(s.kernel, { goalId: g, title: 'a' }).id;
    addTodo(s.kernel, { goalId: g, title: 'b' });
    claimTodo(s.as(codex), a, { leaseSeconds: 120 });
    expect(answer(g)).toMatchObject({ reason: 'concurrency_limit', nextWakeAt: iso(s.clock.ms + 120_000) });
    shipTodo(s.as(codex), a, { evidence: 'done' });
    expect(answer(g).reason).toBe('ok');
  });

  test("a person's own claim takes no agent's slot; a turn a person starts for an agent does", () => {
    const g = goalWith({ maxConcurrent: 1, turnsPerWindow: 5 });
    const mine = addTodo(s.kernel, { goalId: g, title: 'the person works this' }).id;
    addTodo(s.kernel, { goalId: g, title: 'b' });
    addTodo(s.kernel, { goalId: g, title: 'c' });
    claimTodo(s.kernel, mine, { leaseSeconds: 120 });
    expect(answer(g)).toMatchObject({ run: true, reason: 'ok' });
    expect(quotaState(s.kernel.db, getGoal(s.kernel.db, g), s.clock.ms)).toMatchObject({
      liveClaims: 1,
      personClaims: 1,
      holders: ['ada'],
      personHolders: ['ada'],
    });
    startTurn(s.kernel, { goalId: g, host: 'custom', agent: 'codex' });
    expect(answer(g)).toMatchObject({ run: false, reason: 'concurrency_limit' });
    expect(quotaState(s.kernel.db, getGoal(s.kernel.db, g), s.clock.ms)).toMatchObject({
      liveClaims: 2,
      personClaims: 1,
      holders: ['ada', 'codex'],
      personHolders: ['ada'],
    });
  });

  test('a turn whose agent shipped holds its slot until it ends, or for WIND_DOWN_SECONDS if nobody ends it', () => {
    const g = goalWith({ maxConcurrent: 1, turnsPerWindow: 5 });
    addTodo(s.kernel, { goalId: g, title: 'a' });
    addTodo(s.kernel, { goalId: g, title: 'b' });
    const first = startTurn(s.as(codex), { goalId: g, host: 'custom' }).turn;
    shipTodo(s.as(codex), first.todoId as string, { evidence: 'done' });
    expect(answer(g)).toMatchObject({ reason: 'concurrency_limit', nextWakeAt: iso(s.clock.ms + WIND_DOWN_SECONDS * 1000) });
    expect(quotaState(s.kernel.db, getGoal(s.kernel.db, g), s.clock.ms)).toMatchObject({ liveClaims: 0, windingDown: 1 });
    finishTurn(s.as(codex), first.id, 0);
    expect(answer(g).reason).toBe('ok');

    const second = startTurn(s.as(codex), { goalId: g, host: 'custom' }).turn;
    shipTodo(s.as(codex), second.todoId as string, { evidence: 'done' });
    addTodo(s.kernel, { goalId: g, title: 'c' });
    s.clock.advance(WIND_DOWN_SECONDS - 1);
    expect(answer(g).reason).toBe('concurrency_limit');
    s.clock.advance(2); // a turn nobody finishes does not hold the goal forever
    expect(answer(g).reason).toBe('ok');
  });

  test('cooldown after a spend', () => {
    const g = goalWith({ cooldownSeconds: 300 });
    addTodo(s.kernel, { goalId: g, title: 't' });
    spendQuota(s.as(codex), g, 'r1');
    expect(answer(g)).toMatchObject({ reason: 'cooldown', nextWakeAt: iso(s.clock.ms + 300_000) });
    s.clock.advance(300);
    expect(answer(g).reason).toBe('ok');
  });

  test('when several reasons hold, the first in contract order is given', () => {
    const g = goalWith({ turnsPerWindow: 1, cooldownSeconds: 600 });
    spendQuota(s.as(codex), g, 'r1');
    // no ready work, budget exhausted and cooldown all hold: no_ready_work comes first.
    expect(answer(g).reason).toBe('no_ready_work');
    addTodo(s.kernel, { goalId: g, title: 't' });
    expect(answer(g).reason).toBe('budget_exhausted');
  });
});

describe('quota spend', () => {
  test('is idempotent per turn id and counts once', () => {
    const g = goalWith({ turnsPerWindow: 5 });
    expect(spendQuota(s.as(codex), g, 'ext-42')).toMatchObject({ spent: true, alreadySpent: false });
    expect(spendQuota(s.as(codex), g, 'ext-42')).toMatchObject({ spent: false, alreadySpent: true });
    expect(quotaState(s.kernel.db, getGoal(s.kernel.db, g), s.clock.ms)).toMatchObject({ spent: 1, remaining: 4 });
  });

  test('is refused when the budget is exhausted and records nothing', () => {
    const g = goalWith({ turnsPerWindow: 1 });
    spendQuota(s.as(codex), g, 'a');
    const events = () => s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n;
    const before = events();
    expect(() => spendQuota(s.as(codex), g, 'b')).toThrow(expect.objectContaining({ code: 'budget_exhausted', exitCode: 3 }));
    expect(events()).toBe(before);
  });

  test('rejects malformed turn ids', () => {
    const g = goalWith({});
    for (const bad of ['', 'has space', 'x'.repeat(129), 'tab\there']) {
      expect(() => spendQuota(s.as(codex), g, bad)).toThrow(expect.objectContaining({ exitCode: 2 }));
    }
  });
});

describe('a turn reserves its unit of budget when it starts', () => {
  const spends = () => Number(s.kernel.db.prepare('SELECT count(*) AS n FROM quota_spends').get()?.n);

  test('with one slot left, a second concurrent turn does not start; both turns spend and the window holds its limit', () => {
    const g = goalWith({ turnsPerWindow: 2, maxConcurrent: 3 });
    for (const t of ['a', 'b', 'c']) addTodo(s.kernel, { goalId: g, title: t });
    spendQuota(s.as(codex), g, 'earlier');
    const first = startTurn(s.as(codex), { goalId: g, host: 'custom' }).turn;
    expect(quotaState(s.kernel.db, getGoal(s.kernel.db, g), s.clock.ms)).toMatchObject({ spent: 1, reserved: 1, remaining: 0 });
    expect(answer(g)).toMatchObject({ run: false, reason: 'budget_exhausted', remaining: 0 });
    expect(() => startTurn(s.as(agent('claude')), { goalId: g, host: 'custom' })).toThrow(
      expect.objectContaining({ code: 'should_not_run', data: expect.objectContaining({ reason: 'budget_exhausted' }) }),
    );
    expect(() => spendQuota(s.as(codex), g, 'by-hand')).toThrow(expect.objectContaining({ code: 'budget_exhausted' }));
    shipTodo(s.as(codex), first.todoId as string, { evidence: 'done' });
    expect(finishTurn(s.kernel, first.id, 0)).toMatchObject({ spent: true });
    expect(spends()).toBe(2);
  });

  test('a reservation that ends without validated work is freed, not spent', () => {
    const g = goalWith({ turnsPerWindow: 1 });
    addTodo(s.kernel, { goalId: g, title: 'a' });
    addTodo(s.kernel, { goalId: g, title: 'b' });
    const first = startTurn(s.as(codex), { goalId: g, host: 'custom' }).turn;
    expect(answer(g).reason).toBe('budget_exhausted');
    expect(finishTurn(s.kernel, first.id, 1)).toMatchObject({ resultKind: 'host_failure', spent: false });
    expect(quotaState(s.kernel.db, getGoal(s.kernel.db, g), s.clock.ms)).toMatchObject({ spent: 0, reserved: 0, remaining: 1 });
    expect(answer(g).reason).toBe('ok');
  });

  test('a budget lowered while turns ran is still never exceeded: a validated turn without room is recorded unspent (budgetFull)', () => {
    const g = goalWith({ turnsPerWindow: 2, maxConcurrent: 2 });
    addTodo(s.kernel, { goalId: g, title: 'a' });
    addTodo(s.kernel, { goalId: g, title: 'b' });
    const first = startTurn(s.as(codex), { goalId: g, host: 'custom' }).turn;
    const second = startTurn(s.as(agent('claude')), { goalId: g, host: 'custom' }).turn;
    s.kernel.write((tx) => tx.emit({ kind: 'goal.edited', goalId: g, todoId: null, data: { turnsPerWindow: 1 } }));
    shipTodo(s.as(codex), first.todoId as string, { evidence: 'done' });
    shipTodo(s.as(agent('claude')), second.todoId as string, { evidence: 'done' });
    expect(finishTurn(s.kernel, first.id, 0)).toMatchObject({ resultKind: 'validated_completion', spent: false });
    expect(finishTurn(s.kernel, second.id, 0)).toMatchObject({ resultKind: 'validated_completion', spent: true });
    expect(spends()).toBe(1);
    const finished = s.kernel.db.prepare(`SELECT data FROM events WHERE kind = 'turn.finished' ORDER BY seq`).all();
    expect(finished.map((r) => JSON.parse(String(r.data)).budgetFull)).toEqual([true, undefined]);
  });

  test('a spend by hand for a running turn uses that turn’s own reservation', () => {
    const g = goalWith({ turnsPerWindow: 1 });
    addTodo(s.kernel, { goalId: g, title: 'a' });
    const first = startTurn(s.as(codex), { goalId: g, host: 'custom' }).turn;
    expect(spendQuota(s.as(codex), g, first.id)).toMatchObject({ spent: true });
    addEvidence(s.as(codex), { todoId: first.todoId as string, summary: 'x' });
    expect(finishTurn(s.kernel, first.id, 0)).toMatchObject({ spent: true });
    expect(spends()).toBe(1);
  });
});

describe("a runner's turn keeps its goal's slot until its deadline", () => {
  test('after its lease lapsed (its runner died, its agent may still run): no second turn, on that todo or another', () => {
    const g = goalWith({ maxConcurrent: 1, turnsPerWindow: 10 });
    addTodo(s.kernel, { goalId: g, title: 'a' });
    addTodo(s.kernel, { goalId: g, title: 'b' });
    const first = startTurn(s.as(codex), { goalId: g, host: 'custom', leaseSeconds: 60, limitSeconds: 600 }).turn;
    const deadline = iso(Date.parse(first.startedAt) + (600 + TURN_END_GRACE_SECONDS) * 1000);
    expect(first.deadlineAt).toBe(deadline);
    s.clock.advance(300); // the lease lapsed long ago; nobody renewed it
    expect(answer(g)).toMatchObject({ run: false, reason: 'concurrency_limit', nextWakeAt: deadline });
    s.clock.ms = Date.parse(deadline);
    // Past its deadline the slot is free, but its todo is not taken while the turn is open.
    expect(answer(g).reason).toBe('ok');
    expect(startTurn(s.as(agent('claude')), { goalId: g, host: 'custom' }).turn.todoId).toBe('T2');
  });

  test('with room for two: a second turn takes another todo, never the one whose turn is still open', () => {
    const g = goalWith({ maxConcurrent: 2, turnsPerWindow: 10 });
    addTodo(s.kernel, { goalId: g, title: 'a' });
    addTodo(s.kernel, { goalId: g, title: 'b' });
    startTurn(s.as(codex), { goalId: g, host: 'custom', leaseSeconds: 60, limitSeconds: 600 });
    s.clock.advance(120);
    expect(() => startTurn(s.as(agent('claude')), { goalId: g, host: 'custom', todoId: 'T1' })).toThrow(
      expect.objectContaining({ code: 'not_ready', message: expect.stringContaining('turn R1 is still open') }),
    );
    expect(startTurn(s.as(agent('claude')), { goalId: g, host: 'custom' }).turn.todoId).toBe('T2');
    expect(answer(g).reason).toBe('no_ready_work'); // T1 is in R1's hands until R1 ends
  });

  test('a turn started by hand that nobody finishes: after a minute it holds no slot, and status says what it still keeps', () => {
    const g = goalWith({ maxConcurrent: 2, turnsPerWindow: 10 });
    addTodo(s.kernel, { goalId: g, title: 'a' });
    addTodo(s.kernel, { goalId: g, title: 'b' });
    const byHand = startTurn(s.as(codex), { goalId: g, host: 'custom' }).turn;
    const runner = startTurn(s.as(agent('claude')), { goalId: g, host: 'custom', todoId: 'T2', limitSeconds: 600 });
    releaseTodo(s.as(codex), 'T1');
    releaseTodo(s.as(agent('claude')), 'T2');
    expect(statusReport(s.kernel.db, s.clock.ms).heldOpen).toEqual([]);
    s.clock.advance(WIND_DOWN_SECONDS + 1);
    expect(statusReport(s.kernel.db, s.clock.ms).heldOpen).toEqual([
      { id: byHand.id, goalId: g, todoId: 'T1', agent: 'codex', startedAt: byHand.startedAt },
    ]);
    expect(quotaState(s.kernel.db, getGoal(s.kernel.db, g), s.clock.ms)).toMatchObject({ reserved: 2, remaining: 8 });
    expect(runner.turn.deadlineAt).not.toBeNull();
  });
});

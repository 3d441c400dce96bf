import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from './goals';
import { addTodo, shipTodo } from '../todos/todos';
import { startTurn } from '../turns/turns';
import { turnDir } from '../turns/turnRecord';
import { finishTurn } from '../turns/turnFinish';
import { addEvidence } from '../evidence/evidence';
import { quotaState, shouldRun } from './quotaQueries';
import { shouldRunReason } from '../../protocol/shouldRunWords';
import { budgetWords } from '../../shared/usageWords';
import { getGoal } from './goalQueries';

let s: TestStore;
const codex = agent('codex');
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

/** A custom-host turn that ships its todo and reports `usage` through turn finish (--usage). */
function shippedTurn(goalId: string, usage: unknown): void {
  const todo = addTodo(s.kernel, { goalId, title: 'work' }).id;
  const { turn } = startTurn(s.as(codex), { goalId, host: 'custom', todoId: todo });
  addEvidence(s.as(codex), { todoId: todo, kind: 'test', summary: 'ok' });
  shipTodo(s.as(codex), todo, {});
  finishTurn(s.as(codex), turn.id, 0, usage);
  s.clock.advance(1);
}
const answer = (goalId: string) => shouldRun(s.kernel.db, getGoal(s.kernel.db, goalId), s.clock.ms);

describe('budgets in what people pay', () => {
  test('a money cap stops the next turn when it would likely pass it: the estimate is the mean of the last turns', () => {
    const g = createGoal(s.kernel, { title: 'g', dollarsPerWindow: 0.05, windowHours: 24 }).id;
    addTodo(s.kernel, { goalId: g, title: 'next' });
    shippedTurn(g, { inputTokens: 1000, outputTokens: 100, costUsd: 0.02 });
    expect(answer(g)).toMatchObject({ run: true });
    shippedTurn(g, { inputTokens: 1000, outputTokens: 100, costUsd: 0.02 });
    // $0.04 used, a turn costs about $0.02: a third would make $0.06, past $0.05.
    const no = answer(g);
    expect(no).toMatchObject({
      run: false,
      reason: 'budget_exhausted',
      budget: 'dollars',
      usage: { dollars: 0.04, perTurn: { dollars: 0.02 } },
    });
    expect(no.nextWakeAt).not.toBeNull();
    expect(shouldRunReason({ ...no })).toBe(
      'the next turn would likely pass the money budget ($0.04 of $0.05 spent in 24 h; a turn costs about $0.02)',
    );
    // Starting a turn is refused the same way, and nothing is claimed.
    expect(() => startTurn(s.as(codex), { goalId: g, host: 'custom' })).toThrow(/budget/);
  });

  test('a token cap counts tokens in and out of every turn that ended in the window, failed ones too', () => {
    const g = createGoal(s.kernel, { title: 'g', tokensPerWindow: 5000, windowHours: 1 }).id;
    const todo = addTodo(s.kernel, { goalId: g, title: 'hard' }).id;
    // A turn that wrote nothing back still used tokens: they count.
    const { turn } = startTurn(s.as(codex), { goalId: g, host: 'custom', todoId: todo });
    expect(finishTurn(s.as(codex), turn.id, 1, { inputTokens: 3000, outputTokens: 1000 })).toMatchObject({
      resultKind: 'host_failure',
      spent: false,
      usage: { inputTokens: 3000, outputTokens: 1000 },
    });
    addTodo(s.kernel, { goalId: g, title: 'other' });
    expect(answer(g)).toMatchObject({ run: false, reason: 'budget_exhausted', budget: 'tokens' });
    expect(shouldRunReason(answer(g))).toBe(
      'the next turn would likely pass the token budget (4k of 5k tokens spent in 1 h; a turn uses about 4k tokens)',
    );
    // An hour later the turn has left the window.
    s.clock.advance(3601);
    expect(answer(g)).toMatchObject({ run: true });
  });

  test('without caps, usage is still summed for people to see; unknown usage counts nothing', () => {
    const g = createGoal(s.kernel, { title: 'g' }).id;
    shippedTurn(g, { inputTokens: 400_000, outputTokens: 10_000, costUsd: 3.2 });
    shippedTurn(g, 'not a report');
    const q = quotaState(s.kernel.db, getGoal(s.kernel.db, g), s.clock.ms);
    expect(q.usage).toMatchObject({ tokens: 410_000, dollars: 3.2, tokensPerWindow: null, dollarsPerWindow: null });
    expect(budgetWords(q.usage)).toBe('$3.20 · 410k tokens');
    addTodo(s.kernel, { goalId: g, title: 'next' });
    expect(answer(g).run).toBe(true);
  });

  test("the host's own report in the turn's output wins over --usage: an agent cannot talk its turn cheaper", () => {
    const g = createGoal(s.kernel, { title: 'g' }).id;
    const todo = addTodo(s.kernel, { goalId: g, title: 'work' }).id;
    const { turn } = startTurn(s.as(codex), { goalId: g, host: 'custom', todoId: todo });
    mkdirSync(join(s.root, turnDir(turn.id)), { recursive: true });
    writeFileSync(
      join(s.root, turnDir(turn.id), 'output.log'),
      'working\nloopx-usage: {"inputTokens":9000,"outputTokens":900,"costUsd":0.5}\n',
    );
    expect(finishTurn(s.as(codex), turn.id, 0, { inputTokens: 1, outputTokens: 1, costUsd: 0 }).usage).toMatchObject({
      inputTokens: 9000,
      costUsd: 0.5,
    });
  });

  test('caps are checked where goals are made: a cap of nothing or of an absurd amount is refused in words', () => {
    expect(() => createGoal(s.kernel, { title: 'g', dollarsPerWindow: 0 })).toThrow(
      'dollars must be an amount above 0 and at most 1000000 per window',
    );
    expect(() => createGoal(s.kernel, { title: 'g', tokensPerWindow: 2.5 })).toThrow(/tokens must be a whole number/);
    expect(getGoal(s.kernel.db, createGoal(s.kernel, { title: 'g', dollarsPerWindow: 10.005 }).id).policy.dollarsPerWindow).toBe(10.01);
  });
});

import { afterEach, beforeEach, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo } from '../todos/todos';
import { addEvidence } from '../evidence/evidence';
import { startTurn } from '../turns/turns';
import { finishTurn } from '../turns/turnFinish';
import { cacheFigures } from './cacheFigures';
import { goalStory } from './story';
import { cacheTileWords, cacheWords } from '../../shared/usageWords';
import { iso } from '../time';

let s: TestStore;
let goalId: string;
beforeEach(() => {
  s = makeStore();
  goalId = createGoal(s.kernel, { title: 'Cached', turnsPerWindow: 10 }).id;
});
afterEach(() => s.dispose());

/** One turn of the goal that made progress and reported `usage`. */
function turnUsing(usage: object): void {
  addTodo(s.kernel, { goalId, title: 'Work' });
  const started = startTurn(s.kernel, { goalId, host: 'custom', agent: 'codex' }).turn;
  addEvidence(s.as(agent('codex')), { todoId: started.todoId as string, summary: 'half way' });
  finishTurn(s.kernel, started.id, 0, usage);
  s.clock.advance(600);
}

test("a goal's cache figures: the share of input read from the cache, and what it saved at each model's prices", () => {
  const start = s.clock.ms;
  // Sonnet: 50k read (saves $2.70/M), 30k written (costs $0.75/M more); gpt-5: 80k read (saves $1.125/M), no write charge.
  turnUsing({ inputTokens: 82_000, cachedTokens: 50_000, cacheWriteTokens: 30_000, outputTokens: 1000, model: 'claude-sonnet-4' });
  turnUsing({ inputTokens: 100_000, cachedTokens: 80_000, outputTokens: 1000, model: 'gpt-5' });
  // A model with no price: its tokens count in the share, not in the savings.
  turnUsing({ inputTokens: 18_000, cachedTokens: 0, outputTokens: 1000, model: 'mystery-1' });
  const figures = cacheFigures(s.kernel.db, goalId, null);
  const saved = (50_000 * 2.7 - 30_000 * 0.75 + 80_000 * 1.125) / 1e6;
  expect(figures).toMatchObject({ turns: 3, inputTokens: 200_000, cachedTokens: 130_000, cacheWriteTokens: 30_000, hitShare: 0.65 });
  expect(figures.savedUsd).toBeCloseTo(saved, 6);
  expect(cacheWords(figures)).toBe('65% of input read from the prompt cache, saving $0.20');
  // Only the turns that ended after `since` (the quota window).
  expect(cacheFigures(s.kernel.db, goalId, iso(start + 300_000))).toMatchObject({ turns: 2, inputTokens: 118_000 });
  // The story tells the goal's whole life.
  expect(goalStory(s.kernel.db, goalId, s.clock.ms).cache).toEqual({ hitShare: 0.65, savedUsd: figures.savedUsd });
  expect(cacheTileWords(figures)).toEqual({ value: '65%', detail: 'of input read from the prompt cache, saving $0.20' });
});

test('no known input: no share and no savings, said as such; a cache that only wrote says it cost more', () => {
  expect(cacheFigures(s.kernel.db, goalId, null)).toMatchObject({ turns: 0, hitShare: null, savedUsd: null });
  expect(cacheTileWords({ hitShare: null, savedUsd: null })).toEqual({ value: '—', detail: "no turn's input is known yet" });
  turnUsing({ inputTokens: 40_000, cachedTokens: 0, cacheWriteTokens: 40_000, outputTokens: 100, model: 'claude-sonnet-4' });
  expect(cacheWords(cacheFigures(s.kernel.db, goalId, null))).toBe(
    '0% of input read from the prompt cache, costing $0.03 more to write than it saved',
  );
});

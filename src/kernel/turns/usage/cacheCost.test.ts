import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../../test/support/testKit';
import { HostStream } from './hostStream';
import { DEFAULT_PRICES, cacheSavedAt, checkPrice } from '../../prices/modelPrices';
import { checkUsage, priced } from './usage';
import { createGoal } from '../../goals/goals';
import { addTodo } from '../../todos/todos';
import { addEvidence } from '../../evidence/evidence';
import { startTurn } from '../turns';
import { finishTurn } from '../turnFinish';
import { getTurn } from '../turnQueries';
import { checkReplay } from '../../replay';
import { personalPrices, setPrice } from '../../prices/priceTable';

const SONNET = DEFAULT_PRICES['claude-sonnet-4'] as NonNullable<(typeof DEFAULT_PRICES)[string]>;
/** A Sonnet turn as a custom host reports it (no cost): 2k fresh input, 50k read from the cache, 30k written to it. */
const CACHED_TURN = { inputTokens: 82_000, cachedTokens: 50_000, cacheWriteTokens: 30_000, outputTokens: 4_000, model: 'claude-sonnet-4' };

describe('cache writes are counted and priced at their own rate', () => {
  test("Claude Code's result: cache_creation_input_tokens are the turn's cache writes, inside its input", () => {
    const stream = new HostStream('claude');
    const usage = { input_tokens: 2000, cache_creation_input_tokens: 30_000, cache_read_input_tokens: 50_000, output_tokens: 4000 };
    stream.push(
      `${JSON.stringify({ type: 'result', subtype: 'success', total_cost_usd: 0.1, usage, modelUsage: { 'claude-sonnet-4': {} } })}\n`,
    );
    stream.end();
    expect(stream.usage).toMatchObject({ inputTokens: 82_000, cachedTokens: 50_000, cacheWriteTokens: 30_000, outputTokens: 4000 });
  });

  test("OpenCode's step: cache.write are the cache writes", () => {
    const stream = new HostStream('opencode');
    const tokens = { input: 1000, output: 200, reasoning: 0, cache: { read: 9000, write: 5000 } };
    stream.push(`${JSON.stringify({ type: 'step_finish', part: { tokens, cost: 0, reason: 'stop' } })}\n`);
    stream.end();
    expect(stream.usage).toMatchObject({ inputTokens: 15_000, cachedTokens: 9000, cacheWriteTokens: 5000 });
  });

  test('priced: fresh input at the input rate, reads at the cached rate, writes at the write rate (Sonnet: $3.75/M)', () => {
    const usage = checkUsage(CACHED_TURN).usage;
    if (!usage) throw new Error('the report should pass');
    // 2k × $3 + 50k × $0.30 + 30k × $3.75 + 4k × $15, per million
    expect(priced(usage).costUsd).toBeCloseTo((2000 * 3 + 50_000 * 0.3 + 30_000 * 3.75 + 4000 * 15) / 1e6, 9);
    // Without a write rate (OpenAI: no write charge) a write costs what input costs.
    expect(priced({ ...usage, model: 'gpt-5' }).costUsd).toBeCloseTo((32_000 * 1.25 + 50_000 * 0.125 + 4000 * 10) / 1e6, 9);
  });

  test('what the cache saved: the reads at input less cached price, less what the writes cost above input', () => {
    const usage = checkUsage(CACHED_TURN).usage;
    if (!usage) throw new Error('the report should pass');
    expect(cacheSavedAt(usage, SONNET)).toBeCloseTo((50_000 * 2.7 - 30_000 * 0.75) / 1e6, 9);
    // A turn that only wrote (a cold start) lost money on the cache.
    expect(cacheSavedAt({ ...usage, cachedTokens: 0 }, SONNET)).toBeLessThan(0);
  });

  test('a write count larger than the input not read from the cache is dropped with a warning; a turn without writes has no such field', () => {
    const checked = checkUsage({ ...CACHED_TURN, cacheWriteTokens: 40_000 });
    expect(checked.usage).not.toHaveProperty('cacheWriteTokens');
    expect(checked.warnings.join(' ')).toMatch(/cacheWriteTokens 40000 is more than the input not read from the cache \(32000\)/);
    expect(checkUsage({ inputTokens: 10, outputTokens: 1 }).usage).not.toHaveProperty('cacheWriteTokens');
    expect(checkUsage({ ...CACHED_TURN, cacheWriteTokens: -1 }).usage).toBeNull();
  });
});

describe('in the store', () => {
  let s: TestStore;
  beforeEach(() => {
    s = makeStore();
  });
  afterEach(() => s.dispose());

  test('a finished turn keeps its cache writes and its cost; replay agrees', () => {
    const goalId = createGoal(s.kernel, { title: 'Cached', turnsPerWindow: 10 }).id;
    addTodo(s.kernel, { goalId, title: 'Work' });
    const started = startTurn(s.kernel, { goalId, host: 'custom', agent: 'codex' }).turn;
    addEvidence(s.as(agent('codex')), { todoId: started.todoId as string, summary: 'half way' });
    finishTurn(s.kernel, started.id, 0, CACHED_TURN);
    expect(getTurn(s.kernel.db, started.id).usage).toMatchObject({ cacheWriteTokens: 30_000, costSource: 'prices' });
    expect(checkReplay(s.kernel.db)).toMatchObject({ ok: true, differences: [] });
  });

  test("a person's price may name a cache-write rate; one that does not leaves it out; a bad one is refused in words", () => {
    setPrice(s.kernel, { model: 'claude-sonnet-4', input: 3, cachedInput: 0.3, cacheWrite: 6, output: 15 });
    setPrice(s.kernel, { model: 'gpt-5', input: 2, cachedInput: 0.2, output: 16 });
    expect(personalPrices(s.kernel.db).map((p) => [p.model, p.cacheWrite])).toEqual([
      ['claude-sonnet-4', 6],
      ['gpt-5', undefined],
    ]);
    expect(checkReplay(s.kernel.db)).toMatchObject({ ok: true, differences: [] });
    expect(checkPrice('m', { input: 1, cachedInput: 0.1, output: 2, cacheWrite: -1 }, '2026-12-05')).toMatch(/cacheWrite, when given/);
  });
});

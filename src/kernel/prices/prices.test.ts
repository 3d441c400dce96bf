import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, bareHuman, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo } from '../todos/todos';
import { addEvidence } from '../evidence/evidence';
import { startTurn } from '../turns/turns';
import { finishTurn } from '../turns/turnFinish';
import { checkReplay, replayLog } from '../replay';
import { DEFAULT_PRICES } from './modelPrices';
import { personalPrices, priceTable, pricesInForce, removePrice, setPrice, setPrices } from './priceTable';

let s: TestStore;
beforeEach(() => {
  s = makeStore();
});
afterEach(() => s.dispose());

const events = () => Number(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n);
const GPT5 = { model: 'gpt-5', input: 2, cachedInput: 0.2, output: 16, source: 'https://openai.com/api/pricing/', asOf: '2027-01-02' };

/** One turn of a custom host that reports tokens but no money, as `turn finish --usage` gives them: its cost. */
function costOfTurn(usage: object): number | null {
  const goalId = createGoal(s.kernel, { title: 'Priced', turnsPerWindow: 10 }).id;
  addTodo(s.kernel, { goalId, title: 'Work' });
  const started = startTurn(s.kernel, { goalId, host: 'custom', agent: 'codex' }).turn;
  addEvidence(s.as(agent('codex')), { todoId: started.todoId as string, summary: 'half way' });
  return finishTurn(s.kernel, started.id, 0, usage).usage?.costUsd ?? null;
}
const MILLION_IN = { inputTokens: 1_000_000, outputTokens: 0, model: 'gpt-5' };

describe("a model's price is a person's decision, recorded in the store", () => {
  test('an agent is refused (not_allowed), and a "human" without a channel (human_channel_required); nothing changes', () => {
    const before = events();
    expect(() => setPrice(s.as(agent('codex')), GPT5)).toThrow(expect.objectContaining({ code: 'not_allowed' }));
    expect(() => setPrice(s.as(bareHuman), GPT5)).toThrow(expect.objectContaining({ code: 'human_channel_required' }));
    expect(() => setPrices(s.as(agent('codex')), [GPT5])).toThrow(expect.objectContaining({ code: 'not_allowed' }));
    setPrice(s.kernel, GPT5);
    expect(() => removePrice(s.as(agent('codex')), 'gpt-5')).toThrow(expect.objectContaining({ code: 'not_allowed' }));
    expect(() => removePrice(s.as(bareHuman), 'gpt-5')).toThrow(expect.objectContaining({ code: 'human_channel_required' }));
    expect(events()).toBe(before + 1);
    expect(priceTable(s.kernel.db)['gpt-5']).toMatchObject({ input: 2 });
  });

  test('bad input is refused in words and changes nothing', () => {
    const before = events();
    expect(() => setPrice(s.kernel, { ...GPT5, input: -1 })).toThrow(/numbers ≥ 0/);
    expect(() => setPrice(s.kernel, { ...GPT5, output: Number.POSITIVE_INFINITY })).toThrow(/numbers ≥ 0/);
    expect(() => setPrice(s.kernel, { ...GPT5, model: '' })).toThrow(/not a model name/);
    expect(() => setPrices(s.kernel, [GPT5, { ...GPT5, model: 'gpt-5-mini', cachedInput: -0.1 }])).toThrow(/gpt-5-mini/);
    expect(() => removePrice(s.kernel, 'gpt-5')).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(events()).toBe(before);
  });

  test("the person's price is recorded with who set it and the channel; the table in force says which entries are whose", () => {
    const set = setPrice(s.kernel, { model: 'Loopx-Scripted', input: 1, cachedInput: 0.1, output: 4 });
    expect(set).toMatchObject({ model: 'loopx-scripted', source: '', asOf: '2026-01-01', setBy: 'ada', setChannel: 'vscode' });
    setPrice(s.kernel, GPT5);
    const lines = s.kernel.read((db) => pricesInForce(db));
    expect(lines.find((l) => l.model === 'gpt-5')).toMatchObject({ origin: 'person', input: 2, overridesBuiltIn: true, setBy: 'ada' });
    expect(lines.find((l) => l.model === 'loopx-scripted')).toMatchObject({ origin: 'person', overridesBuiltIn: false });
    expect(lines.find((l) => l.model === 'gpt-5-mini')).toMatchObject({ origin: 'built-in', asOf: DEFAULT_PRICES['gpt-5-mini']?.asOf });
    expect(lines).toHaveLength(Object.keys(DEFAULT_PRICES).length + 1);
    const last = s.kernel.db.prepare(`SELECT data FROM events WHERE kind = 'price.set' ORDER BY seq DESC LIMIT 1`).get();
    expect(JSON.parse(String(last?.data))).toMatchObject({ model: 'gpt-5', channel: 'vscode' });
  });

  test("removing a person's price brings back the built-in one (and a model without one is unpriced again)", () => {
    setPrice(s.kernel, GPT5);
    setPrice(s.kernel, { model: 'loopx-scripted', input: 1, cachedInput: 0.1, output: 4 });
    expect(removePrice(s.kernel, 'GPT-5')).toEqual({ model: 'gpt-5', builtIn: DEFAULT_PRICES['gpt-5'] });
    expect(removePrice(s.kernel, 'loopx-scripted')).toEqual({ model: 'loopx-scripted', builtIn: null });
    expect(priceTable(s.kernel.db)).toEqual(DEFAULT_PRICES);
  });

  test('replay rebuilds the table from the log: set, set again over it, removed', () => {
    setPrice(s.kernel, GPT5);
    setPrice(s.kernel, { ...GPT5, input: 3 });
    setPrices(s.kernel, [
      { model: 'loopx-scripted', input: 1, cachedInput: 0.1, output: 4 },
      { model: 'gpt-5-mini', input: 0.5, cachedInput: 0.05, output: 4 },
    ]);
    removePrice(s.kernel, 'gpt-5-mini');
    expect(checkReplay(s.kernel.db)).toMatchObject({ ok: true, differences: [] });
    const replayed = replayLog(s.kernel.db);
    try {
      expect(personalPrices(replayed)).toEqual(personalPrices(s.kernel.db));
      expect(personalPrices(replayed).map((p) => [p.model, p.input])).toEqual([
        ['gpt-5', 3],
        ['loopx-scripted', 1],
      ]);
    } finally {
      replayed.close();
    }
  });
});

describe("a turn's cost comes from the store's table, never from a workspace file", () => {
  test('a rewritten .loopx/prices.json (a price of 0) changes nothing: the built-in price applies', () => {
    mkdirSync(join(s.root, '.loopx'), { recursive: true });
    const zero = { input: 0, cachedInput: 0, output: 0 };
    writeFileSync(join(s.root, '.loopx', 'prices.json'), JSON.stringify({ 'gpt-5': zero, 'loopx-scripted': zero }));
    expect(costOfTurn(MILLION_IN)).toBe(1.25);
    expect(costOfTurn({ ...MILLION_IN, model: 'loopx-scripted' })).toBeNull();
  });

  test("a person's price is what the next turn costs", () => {
    setPrice(s.kernel, GPT5);
    expect(costOfTurn(MILLION_IN)).toBe(2);
  });
});

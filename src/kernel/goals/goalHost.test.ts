import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, bareHuman, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from './goals';
import { setGoalHost } from './goalHost';
import { getGoal } from './goalQueries';
import { addTodo } from '../todos/todos';
import { startTurn } from '../turns/turns';
import { checkReplay } from '../replay';
import { auditDecisions } from '../decisions';

let s: TestStore;
beforeEach(() => {
  s = makeStore();
  createGoal(s.kernel, { title: 'Ship the parser', turnsPerWindow: 5, maxConcurrent: 2 });
  addTodo(s.kernel, { goalId: 'G1', title: 'Parse headers' });
  addTodo(s.kernel, { goalId: 'G1', title: 'Parse body' });
});
afterEach(() => s.dispose());

const eventCount = () => Number(s.kernel.db.prepare('SELECT COUNT(*) AS n FROM events').get()?.n);

describe("a goal's agent, a person's choice", () => {
  test('a person chooses it and clears it; each change is one proven decision and replays to the same state', () => {
    expect(getGoal(s.kernel.db, 'G1').host).toBeNull();
    expect(setGoalHost(s.kernel, 'G1', 'claude').host).toBe('claude');
    const before = eventCount();
    setGoalHost(s.kernel, 'G1', 'claude'); // the same choice again: nothing recorded
    expect(eventCount()).toBe(before);
    expect(setGoalHost(s.kernel, 'G1', null).host).toBeNull();
    const kinds = s.kernel.db.prepare(`SELECT data FROM events WHERE kind = 'goal.host_set' ORDER BY seq`).all();
    expect(kinds.map((r) => JSON.parse(String(r.data)))).toMatchObject([
      { host: 'claude', from: null },
      { host: null, from: 'claude' },
    ]);
    expect(checkReplay(s.kernel.db).ok).toBe(true);
    expect(auditDecisions(s.kernel.db).unproven).toEqual([]);
  });

  test('an agent, or a person without a channel, may not choose it, and nothing changes', () => {
    setGoalHost(s.kernel, 'G1', 'codex');
    const before = eventCount();
    for (const actor of [agent('bot'), bareHuman]) {
      expect(() => setGoalHost(s.as(actor), 'G1', 'custom')).toThrow(
        expect.objectContaining({ code: expect.stringMatching(/human|not_allowed/) }),
      );
    }
    expect(getGoal(s.kernel.db, 'G1').host).toBe('codex');
    expect(eventCount()).toBe(before);
  });

  test('a name that is not a host name is invalid input', () => {
    for (const bad of ['', 'Claude Code', 'a;b', '-x', 'x'.repeat(40)])
      expect(() => setGoalHost(s.kernel, 'G1', bad)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(getGoal(s.kernel.db, 'G1').host).toBeNull();
  });

  test("an agent's turn on another host is refused with nothing claimed; on the chosen one it starts; a person may pick another", () => {
    setGoalHost(s.kernel, 'G1', 'claude');
    const bot = s.as(agent('bot'));
    expect(() => startTurn(bot, { goalId: 'G1', host: 'custom' })).toThrow(/G1's turns run on claude \(a person's choice\), not custom/);
    expect(s.kernel.db.prepare('SELECT COUNT(*) AS n FROM turns').get()?.n).toBe(0);
    expect(startTurn(bot, { goalId: 'G1', host: 'claude' }).turn.host).toBe('claude');
    expect(startTurn(s.kernel, { goalId: 'G1', host: 'codex' }).turn.host).toBe('codex');
  });
});

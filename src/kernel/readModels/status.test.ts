import { afterEach, beforeEach, expect, test } from 'vitest';
import { agent, bareHuman, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal, setGoalStatus } from '../goals/goals';
import { statusReport } from './status';

let s: TestStore;
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

test('a paused goal waits for a person when an agent or a script left it paused, not when a person paused it', () => {
  const proposed = createGoal(s.as(agent('codex')), { title: 'Proposed by an agent' }).id;
  const scripted = createGoal(s.as(bareHuman), { title: 'Created by a script' }).id;
  const agentPaused = createGoal(s.kernel, { title: 'Paused by an agent' }).id;
  setGoalStatus(s.as(agent('claude')), agentPaused, 'paused');
  const personPaused = createGoal(s.kernel, { title: 'Paused by a person' }).id;
  setGoalStatus(s.kernel, personPaused, 'paused');
  const active = createGoal(s.kernel, { title: 'Running' }).id;

  const goals = s.kernel.read((db, now) => statusReport(db, now).goals);
  const waits = Object.fromEntries(goals.map((g) => [g.id, g.waitsForPerson ?? null]));
  expect(waits).toEqual({
    [proposed]: { by: 'codex', proposed: true },
    [scripted]: { by: 'ada', proposed: true },
    [agentPaused]: { by: 'claude', proposed: false },
    [personPaused]: null,
    [active]: null,
  });
});

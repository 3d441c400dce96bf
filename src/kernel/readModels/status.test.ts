import { afterEach, beforeEach, expect, test } from 'vitest';
import { agent, bareHuman, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal, setGoalStatus } from '../goals/goals';
import { statusReport } from './status';
import { addTodo } from '../todos/todos';
import { shouldRun } from '../goals/quotaQueries';
import { getGoal } from '../goals/goalQueries';
import { startTurn } from '../turns/turns';
import { finishTurn } from '../turns/turnFinish';
import { releaseTodo } from '../todos/claims';

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

test("each goal's should-run answer is the one should-run gives alone, with the ready todo it read reused or not", () => {
  const goalId = createGoal(s.kernel, { title: 'One todo, two slots', maxConcurrent: 2 }).id;
  const other = createGoal(s.kernel, { title: 'Two todos' }).id;
  const only = addTodo(s.kernel, { goalId, title: 'only' }).id;
  for (const title of ['first', 'second']) addTodo(s.kernel, { goalId: other, title });
  const alone = () => s.kernel.read((db, now) => [goalId, other].map((id) => shouldRun(db, getGoal(db, id), now)));
  const inReport = () => s.kernel.read((db, now) => statusReport(db, now).goals.map((g) => g.shouldRun));
  expect(inReport()).toEqual(alone());
  // A turn still open on the one todo, which its agent released: the plan leaves it out (no ready work), though the
  // report's next todo is it.
  const turn = startTurn(s.kernel, { goalId, host: 'custom', agent: 'codex', todoId: only }).turn;
  releaseTodo(s.as(agent('codex')), only);
  expect(s.kernel.read((db, now) => statusReport(db, now).goals[0]?.nextTodo?.id)).toBe(only);
  expect(alone()[0]).toMatchObject({ run: false, reason: 'no_ready_work' });
  expect(inReport()).toEqual(alone());
  // Its turn ends without progress: the todo backs off, and the answer says when it may run again.
  finishTurn(s.kernel, turn.id, 1);
  expect(alone()[0]).toMatchObject({ run: false, reason: 'no_change' });
  expect(inReport()).toEqual(alone());
});

import { afterEach, beforeEach, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal, setGoalStatus } from '../goals/goals';
import { addTodo, blockTodo } from '../todos/todos';
import { claimTodo } from '../todos/claims';
import { askGate } from '../gates/gates';
import { addMonitor } from '../monitors/monitors';
import { dashboardView } from './dashboardView';

let s: TestStore;
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

const view = () => s.kernel.read((db, now) => dashboardView(db, now, { key: 'k', name: 'api', root: s.root, store: 'local' }));

test('what waits on a person comes oldest first, each with the command that decides it', () => {
  const codex = s.as(agent('codex'));
  const goal = createGoal(s.kernel, { title: 'Ship' }).id;
  const t1 = addTodo(s.kernel, { goalId: goal, title: 'Parse' }).id;
  const t2 = addTodo(s.kernel, { goalId: goal, title: 'Render' }).id;
  const t3 = addTodo(s.kernel, { goalId: goal, title: 'Wait for CI' }).id;
  claimTodo(codex, t1);
  claimTodo(codex, t3);
  blockTodo(codex, t1, 'needs the API key');
  s.clock.advance(60);
  const gate = askGate(codex, { todoId: t2, question: 'Use the new parser?' }).id;
  s.clock.advance(60);
  const monitor = addMonitor(codex, { todoId: t3, check: 'gh run view 42 --exit-status', everySeconds: 300 }).id;
  s.clock.advance(60);
  const proposed = createGoal(codex, { title: 'Proposed by codex' }).id;

  const v = view();
  expect(v.attention.map((a) => [a.kind, a.id, a.title, a.command])).toEqual([
    ['blocked', t1, 'Parse', `loopx todo unblock ${t1}`],
    ['gate', gate, 'Use the new parser?', `loopx gate approve ${gate}`],
    ['check', monitor, 'gh run view 42 --exit-status', `loopx monitor approve ${monitor}`],
    ['paused', proposed, 'Proposed by codex', `loopx goal resume ${proposed}`],
  ]);
  expect(v.attention[0]).toMatchObject({ detail: 'needs the API key', link: null });
  expect(v.waiting).toMatchObject({ total: 3, gates: 1, blocked: 1, pausedGoals: 1 });
  expect(v.seq).toBeGreaterThan(0);
});

test('goals by phase, their todos at work first, agents with what they hold and until when', () => {
  const codex = s.as(agent('codex'));
  const running = createGoal(s.kernel, { title: 'Running' }).id;
  const stopped = createGoal(s.kernel, { title: 'Stopped' }).id;
  setGoalStatus(s.kernel, stopped, 'stopped');
  const idle = createGoal(s.kernel, { title: 'Nothing to do' }).id;
  const open = addTodo(s.kernel, { goalId: running, title: 'Open one' }).id;
  const held = addTodo(s.kernel, { goalId: running, title: 'Held one' }).id;
  const claim = claimTodo(codex, held);

  const v = view();
  expect(Object.fromEntries(v.goals.map((g) => [g.id, g.phase]))).toEqual({
    [running]: 'running',
    [stopped]: 'stopped',
    [idle]: 'waiting',
  });
  expect(v.goals[0]?.todos.map((t) => [t.id, t.status, t.owner])).toEqual([
    [held, 'claimed', 'codex'],
    [open, 'open', null],
  ]);
  expect(v.agents).toEqual([
    expect.objectContaining({ name: 'codex', claims: [{ todoId: held, title: 'Held one', leaseExpiresAt: claim.todo.leaseExpiresAt }] }),
  ]);
});

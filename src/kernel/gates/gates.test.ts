import { afterEach, beforeEach, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo, killTodo } from '../todos/todos';
import { askGate, decideGate } from './gates';

let s: TestStore;
let goalId: string;
beforeEach(() => {
  s = makeStore();
  goalId = createGoal(s.kernel, { title: 'g' }).id;
});
afterEach(() => s.dispose());

test('agents ask, only humans decide, and a decision is final', () => {
  const todoId = addTodo(s.kernel, { goalId, title: 't' }).id;
  const gate = askGate(s.as(agent('codex')), { todoId, question: 'Delete the legacy table?' });
  expect(gate).toMatchObject({ id: 'Q1', status: 'pending', askedBy: 'codex', todoId, goalId, decidedBy: null });
  expect(() => decideGate(s.as(agent('codex')), gate.id, 'approved')).toThrow(
    expect.objectContaining({ code: 'not_allowed', exitCode: 3 }),
  );
  expect(() => decideGate(s.as(agent('claude')), gate.id, 'rejected')).toThrow(expect.objectContaining({ code: 'not_allowed' }));
  const decided = decideGate(s.kernel, gate.id, 'rejected', 'keep it for audits');
  expect(decided).toMatchObject({ status: 'rejected', decidedBy: 'ada', note: 'keep it for audits' });
  expect(() => decideGate(s.kernel, gate.id, 'approved')).toThrow(expect.objectContaining({ code: 'illegal_transition' }));
});

test('gates need exactly one subject, a question and a live subject', () => {
  const todoId = addTodo(s.kernel, { goalId, title: 't' }).id;
  expect(() => askGate(s.kernel, { question: 'q' })).toThrow(expect.objectContaining({ exitCode: 2 }));
  expect(() => askGate(s.kernel, { todoId, goalId, question: 'q' })).toThrow(expect.objectContaining({ exitCode: 2 }));
  expect(() => askGate(s.kernel, { todoId, question: '' })).toThrow(expect.objectContaining({ exitCode: 2 }));
  expect(() => askGate(s.kernel, { todoId: 'T77', question: 'q' })).toThrow(expect.objectContaining({ exitCode: 4 }));
  killTodo(s.kernel, todoId, 'dropped');
  expect(() => askGate(s.kernel, { todoId, question: 'q' })).toThrow(expect.objectContaining({ code: 'illegal_transition' }));
  expect(() => decideGate(s.kernel, 'Q42', 'approved')).toThrow(expect.objectContaining({ exitCode: 4 }));
});

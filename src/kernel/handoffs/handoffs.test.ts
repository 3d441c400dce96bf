import { afterEach, beforeEach, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo, shipTodo } from '../todos/todos';
import { claimTodo } from '../todos/claims';
import { acceptHandoff, offerHandoff } from './handoffs';
import { getTodo } from '../todos/todoQueries';

let s: TestStore;
let todoId: string;
const codex = agent('codex');
const claude = agent('claude');
beforeEach(() => {
  s = makeStore();
  todoId = addTodo(s.kernel, { goalId: createGoal(s.kernel, { title: 'g' }).id, title: 't' }).id;
  claimTodo(s.as(codex), todoId);
});
afterEach(() => s.dispose());

test('an offer keeps the claim with the sender; accepting moves it with a fresh lease and a continuation', () => {
  const offer = offerHandoff(s.as(codex), todoId, {
    to: 'claude',
    summary: 'parser half done',
    done: 'headers',
    pending: 'body',
    permissions: ['network'],
  });
  expect(offer).toMatchObject({ status: 'offered', from: 'codex', to: 'claude', permissions: ['network'] });
  expect(getTodo(s.kernel.db, todoId).owner).toBe('codex');
  s.clock.advance(60);
  const accepted = acceptHandoff(s.as(claude), offer.id);
  expect(accepted.status).toBe('accepted');
  const todo = getTodo(s.kernel.db, todoId);
  expect(todo).toMatchObject({
    owner: 'claude',
    status: 'claimed',
    continuation: 'Handoff from codex: parser half done\nStill to do: body',
  });
  expect(() => shipTodo(s.as(codex), todoId, { evidence: 'late' })).toThrow(expect.objectContaining({ code: 'lease_lost' }));
  expect(shipTodo(s.as(claude), todoId, { evidence: 'done' }).status).toBe('shipped');
});

test('only the named agent accepts, once; a newer offer supersedes the older', () => {
  const first = offerHandoff(s.as(codex), todoId, { to: 'claude', summary: 'a' });
  const second = offerHandoff(s.as(codex), todoId, { to: 'gemini', summary: 'b' });
  expect(() => acceptHandoff(s.as(claude), first.id)).toThrow(expect.objectContaining({ code: 'illegal_transition' }));
  expect(() => acceptHandoff(s.as(claude), second.id)).toThrow(expect.objectContaining({ code: 'not_allowed' }));
  acceptHandoff(s.as(agent('gemini')), second.id);
  expect(() => acceptHandoff(s.as(agent('gemini')), second.id)).toThrow(expect.objectContaining({ code: 'illegal_transition' }));
});

test('a handoff needs a live lease, another recipient and a summary', () => {
  expect(() => offerHandoff(s.as(claude), todoId, { to: 'x', summary: 's' })).toThrow(expect.objectContaining({ code: 'lease_lost' }));
  expect(() => offerHandoff(s.as(codex), todoId, { to: 'codex', summary: 's' })).toThrow(expect.objectContaining({ exitCode: 2 }));
  expect(() => offerHandoff(s.as(codex), todoId, { to: 'bad name!', summary: 's' })).toThrow(expect.objectContaining({ exitCode: 2 }));
  expect(() => offerHandoff(s.as(codex), todoId, { to: 'claude', summary: ' ' })).toThrow(expect.objectContaining({ exitCode: 2 }));
  expect(() => acceptHandoff(s.as(claude), 'H9')).toThrow(expect.objectContaining({ exitCode: 4 }));
});

test('an offer cannot be accepted after someone else claimed the lapsed todo', () => {
  const offer = offerHandoff(s.as(codex), todoId, { to: 'claude', summary: 'a' });
  s.clock.advance(31 * 60);
  claimTodo(s.as(agent('gemini')), todoId);
  expect(() => acceptHandoff(s.as(claude), offer.id)).toThrow(expect.objectContaining({ code: 'illegal_transition' }));
});

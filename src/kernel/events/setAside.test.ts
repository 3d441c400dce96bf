import { afterEach, describe, expect, test } from 'vitest';
import { createGoal } from '../goals/goals';
import { addTodoInTx, addTodo } from '../todos/todos';
import { getTodo, listTodos } from '../todos/todoQueries';
import { claimTodo } from '../todos/claims';
import { shipTodo } from '../todos/todos';
import { setAsideEvents } from './setAside';
import { checkReplay } from '../replay';
import { forgeEvent } from '../../../test/support/forgeKit';
import { setAsideFound } from '../logHealth';
import { markSetAsideHandled } from '../logDecisions';
import { HumanChannelRequiredError, NotAllowedError } from '../errors';
import { type TestStore, agent, bareHuman, makeStore } from '../../../test/support/testKit';
import { teamEngineUnderTest } from '../../../test/support/teamTestStore';
import { verifyChain } from './verify';

// A local store's file holding an event no reducer can apply (issue 38): an agent that can write .loopx/loopx.db
// appends a well-chained duplicate `todo.added`. The store keeps serving, replay sets the event aside as a team
// replica's catch-up does (setAside.ts), doctor's finding names it, and only a person's decision clears it.

let s: TestStore;
afterEach(() => s?.dispose());

/** A goal with a todo a goal file named `deploy`, and a well-chained duplicate of it appended by raw SQL (no reducer). */
function storeWithPoison(): { goalId: string; poisonSeq: number } {
  s = makeStore();
  const goal = createGoal(s.kernel, { title: 'ship it' });
  s.kernel.write((tx) =>
    addTodoInTx(tx, goal.id, { title: 'deploy', detail: '', priority: 0, dependsOn: [], check: null, recurrence: null, key: 'deploy' }),
  );
  const poisonSeq = forgeEvent(
    s.kernel.db,
    {
      kind: 'todo.added',
      goalId: goal.id,
      todoId: 'T9',
      data: { id: 'T9', num: 9, title: 'deploy again', detail: '', priority: 0, dependsOn: [], key: 'deploy' },
    },
    { at: '2026-01-01T00:00:05.000Z', actor: 'mallory', actorKind: 'agent', channel: null, mirror: false },
  );
  return { goalId: goal.id, poisonSeq };
}

describe.skipIf(teamEngineUnderTest())('an event no reducer can apply, appended to a local store', () => {
  test('the store keeps serving; replay sets the event aside (seq, kind, writer, why) instead of failing', () => {
    const { goalId, poisonSeq } = storeWithPoison();
    expect(verifyChain(s.kernel.db)).toMatchObject({ ok: true });
    // Reads and writes go on.
    expect(s.kernel.read((db) => listTodos(db, '2026-01-01T00:00:00.000Z', { goalId }).map((t) => t.title))).toEqual(['deploy']);
    addTodo(s.kernel, { goalId, title: 'after the poison' });
    const replay = checkReplay(s.kernel.db);
    expect(replay.differences).toEqual([]);
    expect(replay.ok).toBe(true);
    expect(replay.setAside).toEqual([
      {
        seq: poisonSeq,
        kind: 'todo.added',
        actor: 'mallory',
        actorKind: 'agent',
        why: 'goal G1 already has a todo with key deploy',
        handled: null,
      },
    ]);
    // What doctor names: the live store never applied it, replay found it.
    expect(setAsideFound(s.kernel.db, replay.setAside).map((e) => [e.seq, e.handled])).toEqual([[poisonSeq, null]]);
  });

  test('data that does not fit its kind is set aside too, with the field named; a replay twice decides the same', () => {
    s = makeStore();
    const goal = createGoal(s.kernel, { title: 'ship it' });
    const seq = forgeEvent(
      s.kernel.db,
      { kind: 'todo.added', goalId: goal.id, todoId: 'T1', data: { id: 'T1', num: 'one' } as never },
      { at: '2026-01-01T00:00:05.000Z', actor: 'mallory', actorKind: 'agent', channel: null, mirror: false },
    );
    const first = checkReplay(s.kernel.db);
    expect(first.ok).toBe(true);
    expect(first.setAside).toMatchObject([
      { seq, kind: 'todo.added', why: expect.stringMatching(/^its data does not fit todo\.added: num: /) },
    ]);
    expect(checkReplay(s.kernel.db).setAside).toEqual(first.setAside);
  });

  test("a person's recorded decision clears the warning and replays identically; an agent, or a person without a channel, cannot make it", () => {
    const { poisonSeq } = storeWithPoison();
    expect(() => markSetAsideHandled(s.as(agent('mallory')), poisonSeq, 'nothing to redo')).toThrow(NotAllowedError);
    expect(() => markSetAsideHandled(s.as(bareHuman), poisonSeq, 'nothing to redo')).toThrow(HumanChannelRequiredError);
    expect(() => markSetAsideHandled(s.kernel, poisonSeq + 5, 'x')).toThrow(/was not set aside/);
    expect(() => markSetAsideHandled(s.kernel, poisonSeq, '  ')).toThrow(/empty/);
    const { handledSeq } = markSetAsideHandled(s.kernel, poisonSeq, 'a duplicate an agent inserted; nothing to redo');
    const replay = checkReplay(s.kernel.db);
    expect(replay.ok).toBe(true);
    const [found] = setAsideFound(s.kernel.db, replay.setAside);
    expect(found?.handled).toEqual({
      by: 'ada',
      decision: 'a duplicate an agent inserted; nothing to redo',
      at: expect.any(String),
      decidedSeq: handledSeq,
    });
  });

  test('a transition the kernel would refuse (a claim of a shipped todo) is set aside on the live store and on replay, not applied', () => {
    s = makeStore();
    const goal = createGoal(s.kernel, { title: 'ship it' });
    const todo = addTodo(s.kernel, { goalId: goal.id, title: 'deploy' });
    claimTodo(s.as(agent('bob')), todo.id);
    shipTodo(s.as(agent('bob')), todo.id, { evidence: 'deployed and checked' });
    // mallory appends a well-chained claim of the shipped todo; forgeEvent applies it as a replica's catch-up would.
    const seq = forgeEvent(
      s.kernel.db,
      {
        kind: 'todo.claimed',
        goalId: goal.id,
        todoId: todo.id,
        data: { owner: 'mallory', leaseToken: 'x', leaseExpiresAt: '2099-01-01T00:00:00.000Z', previousOwner: null },
      },
      { at: '2026-01-01T00:00:05.000Z', actor: 'mallory', actorKind: 'agent', channel: null },
    );
    expect(getTodo(s.kernel.db, todo.id)).toMatchObject({ status: 'shipped', owner: null });
    const why = `todo ${todo.id} is shipped; todo.claimed needs it open or claimed`;
    expect(setAsideEvents(s.kernel.db)).toMatchObject([{ seq, kind: 'todo.claimed', why }]);
    const replay = checkReplay(s.kernel.db);
    expect(replay.ok).toBe(true);
    expect(replay.differences).toEqual([]);
    expect(replay.setAside).toMatchObject([{ seq, kind: 'todo.claimed', actor: 'mallory', why }]);
  });
});

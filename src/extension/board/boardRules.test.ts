import { afterEach, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal, setGoalStatus } from '../../kernel/goals/goals';
import { addTodo, blockTodo, killTodo, shipTodo } from '../../kernel/todos/todos';
import { claimTodo } from '../../kernel/todos/claims';
import { askGate, decideGate } from '../../kernel/gates/gates';
import { addMonitor } from '../../kernel/monitors/monitors';
import { todoCardFor, todoCards } from '../../kernel/readModels/cards';
import { BOARD_COLUMNS, type BoardColumn, boardColumn, readiness, readyTodoIds, findTodo, leaseLive } from '../../kernel/todos/todoQueries';
import { columnOf, leaseLapsed } from '../../protocol/board';
import { COLUMNS } from '../../protocol/boardProtocol';
import { boardActor, cardOf } from './boardData';
import { boardMove } from '../../kernel/todos/boardMoves';

/**
 * The webview cannot import the kernel, so it keeps a copy of two rules (which column a todo is in, whether its
 * lease is live). This table runs the kernel's rules and the webview's on the same todos, in a real store: when one
 * learns a new state and the other does not, a row here fails. The moves a card allows (computed from its column)
 * and what a drag asks the kernel agree too.
 */
const codex = agent('codex');
const stores: TestStore[] = [];
afterEach(() => stores.splice(0).forEach((s) => s.dispose()));

interface Fixture {
  name: string;
  column: BoardColumn;
  live?: boolean;
  /** Builds the todo; returns its id. */
  make(s: TestStore, goalId: string): string;
}

const add = (s: TestStore, goalId: string, title = 'Parse quoted fields', extra = {}) => addTodo(s.kernel, { goalId, title, ...extra }).id;

const FIXTURES: Fixture[] = [
  { name: 'an open todo with nothing in its way', column: 'ready', make: (s, g) => add(s, g) },
  {
    name: 'an open todo after an unshipped dependency',
    column: 'waiting',
    make: (s, g) => add(s, g, 'second', { dependsOn: [add(s, g, 'first')] }),
  },
  {
    name: 'an open todo after a shipped dependency',
    column: 'ready',
    make: (s, g) => {
      const first = add(s, g, 'first');
      claimTodo(s.as(codex), first);
      shipTodo(s.as(codex), first, { evidence: 'done' });
      return add(s, g, 'second', { dependsOn: [first] });
    },
  },
  {
    name: 'an open todo with a pending gate',
    column: 'waiting',
    make: (s, g) => {
      const id = add(s, g);
      askGate(s.as(codex), { todoId: id, question: 'Keep the old parser?' });
      return id;
    },
  },
  {
    name: 'an open todo whose gate was decided',
    column: 'ready',
    make: (s, g) => {
      const id = add(s, g);
      decideGate(s.kernel, askGate(s.as(codex), { todoId: id, question: 'Keep it?' }).id, 'approved');
      return id;
    },
  },
  {
    name: 'an open todo of a paused goal',
    column: 'waiting',
    make: (s, g) => {
      const id = add(s, g);
      setGoalStatus(s.kernel, g, 'paused');
      return id;
    },
  },
  {
    name: 'an open todo waiting on a monitor',
    column: 'waiting',
    make: (s, g) => {
      const id = add(s, g);
      addMonitor(s.kernel, { todoId: id, afterSeconds: 600 });
      return id;
    },
  },
  {
    name: 'a recurring occurrence not yet due',
    column: 'waiting',
    make: (s, g) => add(s, g, 'Daily report', { recurrence: { every: 86400, at: '09:00', tz: 'UTC' } }),
  },
  {
    name: 'a recurring occurrence that is due',
    column: 'ready',
    make: (s, g) => {
      const id = add(s, g, 'Daily report', { recurrence: { every: 86400, at: '09:00', tz: 'UTC' } });
      s.clock.advance(10 * 3600);
      return id;
    },
  },
  {
    name: 'a claim with a live lease',
    column: 'claimed',
    live: true,
    make: (s, g) => claimTodo(s.as(codex), add(s, g)).todo.id,
  },
  {
    name: 'a claim whose lease lapsed (claimable, but shown where it is)',
    column: 'claimed',
    live: false,
    make: (s, g) => {
      const id = claimTodo(s.as(codex), add(s, g), { leaseSeconds: 60 }).todo.id;
      s.clock.advance(60);
      return id;
    },
  },
  {
    name: 'a blocked todo',
    column: 'blocked',
    make: (s, g) => {
      const id = claimTodo(s.as(codex), add(s, g)).todo.id;
      blockTodo(s.as(codex), id, 'needs fixtures');
      return id;
    },
  },
  {
    name: 'a shipped todo',
    column: 'shipped',
    make: (s, g) => {
      const id = claimTodo(s.as(codex), add(s, g)).todo.id;
      shipTodo(s.as(codex), id, { evidence: 'done' });
      return id;
    },
  },
  { name: 'a killed todo', column: 'killed', make: (s, g) => killTodo(s.kernel, add(s, g), 'not needed').id },
];

test('the webview names the same columns as the kernel, in the same order', () => {
  expect([...COLUMNS]).toEqual([...BOARD_COLUMNS]);
});

test.each(FIXTURES)('$name: the kernel and the webview put it in $column', (fixture) => {
  const s = makeStore();
  stores.push(s);
  const goalId = createGoal(s.kernel, { title: 'Ship the CSV importer' }).id;
  const id = fixture.make(s, goalId);
  const seen = s.kernel.read((db, now) => {
    const at = new Date(now).toISOString();
    const todo = findTodo(db, id);
    if (!todo) throw new Error(`no todo ${id}`);
    const ready = readyTodoIds(db, at, goalId);
    const one = todoCardFor(db, id, at);
    const all = todoCards(db, at).find((c) => c.id === id);
    if (!one || !all) throw new Error(`no card for ${id}`);
    return {
      at,
      todo,
      kernelColumn: boardColumn(todo.status, ready.has(id)),
      readyToClaim: readiness(db, todo, at).ready,
      card: cardOf(one, at, 'ada'),
      sameFacts: JSON.stringify(one) === JSON.stringify(all),
      // What a drag asks the kernel, for each column: the answer the card's allowed targets must agree with.
      drags: BOARD_COLUMNS.map((to) => ({ to, answer: boardMove(db, id, to, boardActor('ada'), at) })),
    };
  });
  // The card's allowed targets (greyed out in the webview from the card's column) and the host's answer to a drop
  // (the kernel's column, read now) are the same rule over the same todo.
  const dragged = seen.drags.flatMap(({ to, answer }) => (answer && 'transition' in answer.move ? [to] : []));
  expect(seen.card.moves).toEqual(dragged);
  expect(seen.drags.every(({ answer }) => answer?.from === fixture.column)).toBe(true);
  expect(seen.kernelColumn).toBe(fixture.column);
  expect(columnOf(seen.card)).toBe(fixture.column);
  // The one-card read a board move uses and the whole-board read say the same.
  expect(seen.sameFacts).toBe(true);
  // The Ready column is what a claim can take (a lapsed claim too, though it stays in progress).
  expect(seen.readyToClaim).toBe(fixture.column === 'ready' || fixture.live === false);
  const live = leaseLive(seen.todo, seen.at);
  expect(live).toBe(fixture.live ?? false);
  expect(leaseLapsed(seen.card, seen.at)).toBe(seen.todo.status === 'claimed' && !live);
});

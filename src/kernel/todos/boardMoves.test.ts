import { afterEach, describe, expect, test } from 'vitest';
import { agent, human, makeStore, type TestStore } from '../../../test/support/testKit';
import type { Actor } from '../events/eventTypes';
import { createGoal, setGoalStatus } from '../goals/goals';
import { askGate, decideGate } from '../gates/gates';
import { addMonitor } from '../monitors/monitors';
import { addTodo, blockTodo, killTodo, shipTodo } from './todos';
import { claimTodo, releaseTodo } from './claims';
import { type BoardMove, type MoveFacts, allowedTargets, boardMove, moveRule } from './boardMoves';
import { BOARD_COLUMNS, type BoardColumn } from './todoQueries';

const NOW = '2026-01-01T12:00:00.000Z';
const LIVE = '2026-01-01T12:30:00.000Z';
const LAPSED = '2026-01-01T11:30:00.000Z';
const ada: Actor = human;
const codex = agent('codex');
const claude = agent('claude');

const facts = (over: Partial<MoveFacts> = {}): MoveFacts => ({
  status: 'open',
  owner: null,
  leaseExpiresAt: null,
  pendingGates: [],
  goalActive: true,
  monitor: null,
  ...over,
});

/** A todo in each column a board shows, as the rule reads it. */
const TODOS: Record<string, { facts: MoveFacts; from: BoardColumn }> = {
  ready: { facts: facts(), from: 'ready' },
  waiting: { facts: facts(), from: 'waiting' },
  'waiting on a monitor': { facts: facts({ monitor: { id: 'M1' } }), from: 'waiting' },
  "codex's live claim": { facts: facts({ status: 'claimed', owner: 'codex', leaseExpiresAt: LIVE }), from: 'claimed' },
  "codex's lapsed claim": { facts: facts({ status: 'claimed', owner: 'codex', leaseExpiresAt: LAPSED }), from: 'claimed' },
  blocked: { facts: facts({ status: 'blocked' }), from: 'blocked' },
  shipped: { facts: facts({ status: 'shipped' }), from: 'shipped' },
  killed: { facts: facts({ status: 'killed' }), from: 'killed' },
  'in review': { facts: facts({ status: 'in_review', owner: 'codex', leaseExpiresAt: LIVE }), from: 'in_review' },
};

/** What each target means, in BOARD_COLUMNS order (ready, waiting, claimed, in_review, blocked, shipped, killed): a transition or a refusal code. */
const EXPECTED: [todo: string, actor: Actor, answers: string][] = [
  ['ready', ada, 'already_there not_a_place claim not_a_place block ship kill'],
  ['ready', codex, 'already_there not_a_place claim not_a_place not_holder not_holder kill'],
  ['waiting', ada, 'waits already_there not_yet not_a_place block not_yet kill'],
  ['waiting', codex, 'waits already_there not_yet not_a_place not_holder not_yet kill'],
  ['waiting on a monitor', ada, 'waits_on_monitor already_there not_yet not_a_place block not_yet kill'],
  ['waiting on a monitor', codex, 'waits_on_monitor already_there not_yet not_a_place not_holder not_yet kill'],
  // A person takes back, blocks or kills anyone's claim, but ships only what nobody holds live.
  ["codex's live claim", ada, 'release not_a_place already_there not_a_place block held_by_other kill'],
  ["codex's live claim", codex, 'release not_a_place already_there not_a_place block ship kill'],
  ["codex's live claim", claude, 'held_by_other not_a_place already_there not_a_place held_by_other held_by_other held_by_other'],
  // A lapsed lease: a person ships it (the ship command claims it first); its agent no longer holds it.
  ["codex's lapsed claim", ada, 'release not_a_place already_there not_a_place block ship kill'],
  ["codex's lapsed claim", codex, 'not_holder not_a_place already_there not_a_place not_holder not_holder kill'],
  ['blocked', ada, 'unblock not_a_place blocked not_a_place already_there blocked kill'],
  ['blocked', codex, 'person_only not_a_place blocked not_a_place already_there blocked kill'],
  ['shipped', ada, 'final final final final final already_there final'],
  ['shipped', codex, 'final final final final final already_there final'],
  ['killed', ada, 'final final final final final final already_there'],
  ['killed', codex, 'final final final final final final already_there'],
  // A change in review leaves it by a verdict: a person's drag to Shipped (approve) or Ready (send back); never an agent's.
  ['in review', ada, 'requestChanges in_review in_review already_there in_review approveReview kill'],
  ['in review', codex, 'person_only in_review in_review already_there in_review person_only person_only'],
];

const said = (move: BoardMove): string => ('transition' in move ? move.transition : move.refused);

describe('the move rule: each column, each state, a person and an agent', () => {
  test('the table covers every column and every todo state', () => {
    expect(new Set(EXPECTED.map(([todo]) => todo))).toEqual(new Set(Object.keys(TODOS)));
    for (const [, , answers] of EXPECTED) expect(answers.split(' ')).toHaveLength(BOARD_COLUMNS.length);
  });

  test.each(EXPECTED)('%s, moved by %o', (todo, actor, answers) => {
    const { facts: f, from } = TODOS[todo] as (typeof TODOS)[string];
    expect(BOARD_COLUMNS.map((to) => said(moveRule(f, from, to, actor, NOW))).join(' ')).toBe(answers);
  });

  test('the allowed targets are the moves the rule allows, Waiting never among them', () => {
    expect(allowedTargets(facts(), 'ready', ada, NOW)).toEqual(['claimed', 'blocked', 'shipped', 'killed']);
    expect(allowedTargets(facts({ status: 'claimed', owner: 'codex', leaseExpiresAt: LIVE }), 'claimed', ada, NOW)).toEqual([
      'ready',
      'blocked',
      'killed',
    ]);
    expect(allowedTargets(facts({ status: 'blocked' }), 'blocked', codex, NOW)).toEqual(['killed']);
    expect(allowedTargets(facts({ status: 'shipped' }), 'shipped', ada, NOW)).toEqual([]);
  });

  test('a move a pending gate refuses names the gates to decide, unless something else holds it back first', () => {
    const gated = facts({ pendingGates: ['Q1', 'Q4'] });
    expect(moveRule(gated, 'waiting', 'shipped', ada, NOW)).toEqual({ refused: 'gated', decide: ['Q1', 'Q4'] });
    expect(moveRule(gated, 'waiting', 'claimed', ada, NOW)).toEqual({ refused: 'not_yet', decide: ['Q1', 'Q4'] });
    expect(moveRule(gated, 'waiting', 'ready', ada, NOW)).toEqual({ refused: 'waits', decide: ['Q1', 'Q4'] });
    // A paused goal, a blocked todo: no decision would let it through.
    expect(moveRule({ ...gated, goalActive: false }, 'waiting', 'claimed', ada, NOW)).toEqual({ refused: 'not_yet' });
    expect(moveRule({ ...gated, status: 'blocked' }, 'blocked', 'shipped', ada, NOW)).toEqual({ refused: 'gated' });
    // Allowed moves and targets no decision opens carry none.
    expect(moveRule(gated, 'waiting', 'killed', ada, NOW)).toEqual({ transition: 'kill' });
    expect(moveRule(gated, 'waiting', 'waiting', ada, NOW)).toEqual({ refused: 'already_there' });
  });
});

describe('boardMove reads the todo now, in a real store', () => {
  const stores: TestStore[] = [];
  afterEach(() => stores.splice(0).forEach((s) => s.dispose()));
  const store = () => {
    const s = makeStore();
    stores.push(s);
    return { s, goalId: createGoal(s.kernel, { title: 'Ship the CSV importer' }).id };
  };
  const ask = (s: TestStore, todoId: string, to: BoardColumn, actor: Actor = ada) =>
    s.kernel.read((db, now) => boardMove(db, todoId, to, actor, new Date(now).toISOString()));

  test('no such todo: no answer', () => {
    const { s } = store();
    expect(ask(s, 'T99', 'claimed')).toBeNull();
  });

  test('the column is the kernel readiness: a todo waits for its dependency, then may be claimed', () => {
    const { s, goalId } = store();
    const first = addTodo(s.kernel, { goalId, title: 'first' }).id;
    const second = addTodo(s.kernel, { goalId, title: 'second', dependsOn: [first] }).id;
    expect(ask(s, second, 'claimed')).toMatchObject({ from: 'waiting', move: { refused: 'not_yet' }, todo: { unmetDeps: [first] } });
    claimTodo(s.as(codex), first);
    shipTodo(s.as(codex), first, { evidence: 'parsed' });
    expect(ask(s, second, 'claimed')).toMatchObject({ from: 'ready', move: { transition: 'claim' } });
  });

  test('a pending gate refuses the ship and names itself to decide; decided, the todo may be claimed', () => {
    const { s, goalId } = store();
    const id = addTodo(s.kernel, { goalId, title: 'Drop the old parser' }).id;
    const gate = askGate(s.as(codex), { todoId: id, question: 'May I delete it?' }).id;
    expect(ask(s, id, 'shipped')?.move).toEqual({ refused: 'gated', decide: [gate] });
    decideGate(s.kernel, gate, 'approved');
    expect(ask(s, id, 'claimed')?.move).toEqual({ transition: 'claim' });
  });

  test('a paused goal and a waiting monitor hold a todo in Waiting', () => {
    const { s, goalId } = store();
    const watched = addTodo(s.kernel, { goalId, title: 'Wait for CI' }).id;
    const monitor = addMonitor(s.kernel, { todoId: watched, afterSeconds: 600 }).id;
    expect(ask(s, watched, 'ready')).toMatchObject({ move: { refused: 'waits_on_monitor' }, todo: { monitor: { id: monitor } } });
    setGoalStatus(s.kernel, goalId, 'paused');
    expect(ask(s, addTodo(s.kernel, { goalId, title: 'later' }).id, 'claimed')).toMatchObject({
      from: 'waiting',
      move: { refused: 'not_yet' },
      todo: { goalActive: false },
    });
  });

  test("an agent's claim: its holder ships it, a person may not, another agent may not touch it; lapsed, the person ships it", () => {
    const { s, goalId } = store();
    const id = claimTodo(s.as(codex), addTodo(s.kernel, { goalId, title: 'Parse quoted fields' }).id, { leaseSeconds: 60 }).todo.id;
    expect(ask(s, id, 'shipped', codex)?.move).toEqual({ transition: 'ship' });
    expect(ask(s, id, 'shipped')?.move).toEqual({ refused: 'held_by_other' });
    expect(ask(s, id, 'blocked', claude)?.move).toEqual({ refused: 'held_by_other' });
    // What the rule refuses an agent, the kernel's own write refuses too.
    expect(() => blockTodo(s.as(claude), id, 'not mine')).toThrow();
    expect(() => releaseTodo(s.as(claude), id)).toThrow();
    expect(() => killTodo(s.as(claude), id, 'not mine')).toThrow();
    s.clock.advance(61);
    expect(ask(s, id, 'shipped')?.move).toEqual({ transition: 'ship' });
    expect(ask(s, id, 'ready', codex)?.move).toEqual({ refused: 'not_holder' });
  });
});

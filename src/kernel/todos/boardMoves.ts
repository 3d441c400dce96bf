import type { SqliteDb } from '../db/sqliteDb';
import type { Actor } from '../events/eventTypes';
import { type Recurrence, type Todo, TODO_STATUSES, isTerminalStatus } from '../model';
import { rowReader } from '../rowReader';
import { type Monitor, waitingMonitor } from '../monitors/monitorQueries';
import { type BoardColumn, boardColumn, claimableNow, leaseLive } from './todoQueries';

/**
 * Which transition dropping a todo into a board column means, for one actor: the one home of the board's move rule.
 * The board's host asks `boardMove` once per drag and runs the transition it names; the snapshot carries each card's
 * allowed targets (`allowedTargets`), so the webview greys out columns from the kernel's answer, not a copy of the rule.
 * The transition's own command still has the last word (evidence, a passing check, the holder at write time).
 */
/** `approveReview` and `requestChanges`: a person's verdict on a change in review (todos/review.ts), given by a drag. */
export type MoveTransition = 'claim' | 'release' | 'ship' | 'block' | 'unblock' | 'kill' | 'approveReview' | 'requestChanges';

/**
 * Why a move is refused, as a code (the protocol words it, with the facts): already in that column, finished,
 * Waiting (never a target), waiting for something (a monitor: cancel it to make the todo ready), not claimable or
 * shippable yet, blocked (unblock first), a pending gate, held by another, not held by the agent moving it, or a
 * person's move (an agent never unblocks).
 */
export type MoveRefusalCode =
  | 'already_there'
  | 'final'
  | 'not_a_place'
  | 'waits'
  | 'waits_on_monitor'
  | 'not_yet'
  | 'blocked'
  | 'gated'
  | 'held_by_other'
  | 'not_holder'
  | 'person_only'
  | 'in_review';

/** A refused move, and the gates whose decision would let it through (the board offers Approve and Reject there). */
export interface MoveRefusal {
  refused: MoveRefusalCode;
  decide?: string[];
}
export type BoardMove = { transition: MoveTransition } | MoveRefusal;

/** What the rule reads of a todo (the board's card facts, `TodoCardFacts`, have every field). */
export interface MoveFacts {
  status: Todo['status'];
  owner: string | null;
  leaseExpiresAt: string | null;
  pendingGates: readonly string[];
  goalActive: boolean;
  monitor: { id: string } | null;
}

/** The rule itself, over facts already read; `from` is the todo's column now (`boardColumn`). */
export function moveRule(todo: MoveFacts, from: BoardColumn, to: BoardColumn, actor: Actor, at: string): BoardMove {
  const answer = ruleFor(todo, from, to, actor, at);
  // Held back by a pending gate (and by nothing a person must fix first): the decision is the way forward.
  const gated = todo.pendingGates.length > 0 && todo.goalActive && (to === 'ready' || to === 'claimed' || to === 'shipped');
  return 'refused' in answer && gated && from !== 'blocked' ? { ...answer, decide: [...todo.pendingGates] } : answer;
}

function ruleFor(todo: MoveFacts, from: BoardColumn, to: BoardColumn, actor: Actor, at: string): BoardMove {
  if (from === to) return { refused: 'already_there' };
  // The Shipped and Killed columns hold exactly the final statuses.
  if (isTerminalStatus(from)) return { refused: 'final' };
  const live = leaseLive(todo, at);
  const heldByOther = live && todo.owner !== actor.name;
  // A person may release, block or kill anyone's claim; an agent only its own (todos.ts, claims.ts).
  const person = actor.kind === 'human';
  const holds = live && todo.owner === actor.name;
  const agentRefusal = (): MoveRefusal | null => (person || holds ? null : { refused: heldByOther ? 'held_by_other' : 'not_holder' });
  // A change in review leaves it by a verdict: a reviewer's (its verbs), or a person's drag to Shipped or Ready.
  if (from === 'in_review') {
    if (to === 'killed') return person ? { transition: 'kill' } : { refused: 'person_only' };
    if (to === 'shipped' || to === 'ready')
      return person ? { transition: to === 'shipped' ? 'approveReview' : 'requestChanges' } : { refused: 'person_only' };
    return { refused: 'in_review' };
  }
  switch (to) {
    case 'in_review':
      // A change goes into review by its implementer's ship, never by a drag.
      return { refused: 'not_a_place' };
    case 'waiting':
      return { refused: 'not_a_place' };
    case 'killed':
      return !person && heldByOther ? { refused: 'held_by_other' } : { transition: 'kill' };
    case 'blocked':
      return agentRefusal() ?? { transition: 'block' };
    case 'ready':
      if (from === 'blocked') return person ? { transition: 'unblock' } : { refused: 'person_only' };
      if (from === 'claimed') return agentRefusal() ?? { transition: 'release' };
      return { refused: todo.monitor ? 'waits_on_monitor' : 'waits' };
    case 'claimed':
      if (from === 'waiting') return { refused: 'not_yet' };
      if (from === 'blocked') return { refused: 'blocked' };
      return { transition: 'claim' };
    case 'shipped':
      if (todo.pendingGates.length) return { refused: 'gated' };
      if (from === 'waiting') return { refused: 'not_yet' };
      if (from === 'blocked') return { refused: 'blocked' };
      if (heldByOther) return { refused: 'held_by_other' };
      // A person ships what nobody holds live (the ship command claims it first); an agent only what it holds.
      return person || holds ? { transition: 'ship' } : { refused: 'not_holder' };
  }
}

/** The columns a move may target, in the board's order (Waiting never is one). */
const TARGETS: readonly BoardColumn[] = ['ready', 'claimed', 'blocked', 'shipped', 'killed'];

/**
 * The columns a move may go to, in the board's order: what a card carries to the webview (the columns alone, a few
 * bytes a card; the transition is the host's to ask when the card is dropped).
 */
export function allowedTargets(todo: MoveFacts, from: BoardColumn, actor: Actor, at: string): BoardColumn[] {
  return TARGETS.filter((to) => 'transition' in moveRule(todo, from, to, actor, at));
}

/** One todo as a move reads it: the rule's facts and what a refusal's words name (why it waits). */
export interface MoveTodo extends MoveFacts {
  id: string;
  goalId: string;
  unmetDeps: string[];
  pendingGates: string[];
  monitor: Monitor | null;
  readyAt: string | null;
  recurrence: Recurrence | null;
}

/** What `boardMove` answers: the move, the todo as read now and its column, or null when there is no such todo. */
export interface BoardMoveAnswer {
  move: BoardMove;
  todo: MoveTodo;
  from: BoardColumn;
}

/** The board's one question to the kernel for a drag: what moving `todoId` to `to` means for `actor`, read now. */
export function boardMove(db: SqliteDb, todoId: string, to: BoardColumn, actor: Actor, at: string): BoardMoveAnswer | null {
  const todo = moveTodo(db, todoId);
  if (!todo) return null;
  // Readiness is the kernel's own (READY_CONDITIONS), not the card's copy of it.
  const from = boardColumn(todo.status, todo.status === 'open' && claimableNow(db, at, todoId));
  return { move: moveRule(todo, from, to, actor, at), todo, from };
}

function moveTodo(db: SqliteDb, todoId: string): MoveTodo | null {
  const row = db.prepare('SELECT id, goal_id, status, owner, lease_expires_at, recurrence, ready_at FROM todos WHERE id = ?').get(todoId);
  if (!row) return null;
  const r = rowReader('todos', row);
  const status = r.oneOf('status', TODO_STATUSES);
  const goalId = r.text('goal_id');
  const ids = (sql: string): string[] =>
    db
      .prepare(sql)
      .all(todoId)
      .map((x) => String(x.id));
  return {
    id: r.text('id'),
    goalId,
    status,
    owner: r.maybeText('owner'),
    leaseExpiresAt: r.maybeText('lease_expires_at'),
    unmetDeps: ids(
      `SELECT d.depends_on AS id FROM todo_deps d JOIN todos dt ON dt.id = d.depends_on WHERE d.todo_id = ? AND dt.status <> 'shipped' ORDER BY dt.num`,
    ),
    pendingGates: ids(`SELECT id FROM gates WHERE todo_id = ? AND status = 'pending' ORDER BY num`),
    goalActive: db.prepare('SELECT status FROM goals WHERE id = ?').get(goalId)?.status === 'active',
    // The monitor a card shows: only while the todo is open or blocked (as the board's cards read it).
    monitor: status === 'open' || status === 'blocked' ? waitingMonitor(db, todoId) : null,
    readyAt: r.maybeText('ready_at'),
    recurrence: r.maybeJson<Recurrence>('recurrence'),
  };
}

import type { SqliteDb } from '../db/sqliteDb';
import type { StoredEvent } from '../events/eventTypes';
import type { TodoStatus } from '../model';

/**
 * Which todo events are legal against a todo's current state: the one home of that rule, declared as data so that
 * three readers share it: the kernel's commands (their status preconditions, `mayStartFrom`), `applyEvent`, which sets
 * aside an illegal transition met in a log (`transitionRefusal`, the same decision on every machine), and the team
 * store's PostgreSQL trigger, generated from this table (team/teamTransitionSql.ts), which refuses such an event in
 * the same transaction as its INSERT through any login.
 *
 * The state a rule reads is a todo's status, owner, lease end and evidence count (`loopx.todo_state` in PostgreSQL,
 * the `todos` table in SQLite); the event offers its actor, actor kind, time and data fields. Lease times are ISO
 * strings, so comparing them as text compares the times. A condition is an `or` of `and`s of comparisons (no `not`):
 * a comparison with a null side is false, as in SQL once wrapped in COALESCE(…, false), so JS and SQL agree.
 *
 * Rules the kernel keeps that are not about the todo's own state (dependencies, gates, a passing check, the goal's
 * status) stay in the commands: a log may hold events the state here cannot judge (a dependency shipped later).
 */

/** A value a condition compares: a field of the todo's state, of the event, of the event's data, or a literal. */
export type StateField = 'status' | 'owner' | 'lease_expires_at' | 'evidence_count' | 'implementer';
export type Operand =
  | { state: StateField }
  | { event: 'actor' | 'actor_kind' | 'at' }
  | { data: string }
  | { value: string | number | null }
  /**
   * What only the team store's database knows as an event arrives (teamTransitionSql.ts): its clock (an ISO time, as
   * leases are written), the database login writing the event, the login that wrote the todo's claim.
   */
  | { server: 'now' | 'login' | 'claimLogin' };

/**
 * `=`, `<>`, `>`, `<=` are false when either side is null (as SQL's are once wrapped in COALESCE(…, false)); `is`
 * compares nulls too (SQL's IS NOT DISTINCT FROM): `{ op: 'is', left: state('owner'), right: { value: null } }`.
 */
export interface Comparison {
  op: '=' | '<>' | '>' | '<=' | 'is';
  left: Operand;
  right: Operand;
}
export interface Junction {
  op: 'or' | 'and';
  of: Condition[];
}
export type Condition = Comparison | Junction;

/** Whether a condition joins others (or, and) rather than comparing two values. */
export function isJunction(c: Condition): c is Junction {
  return c.op === 'or' || c.op === 'and';
}

/** A rule of a transition: it must hold, else `refusal` says why (`{todo}`, `{status}`, `{owner}` filled in). */
export interface Rule {
  holds: Condition;
  refusal: string;
}

/** What an accepted event changes in the state (the kernel's reducers do the same to SQLite's `todos`). */
export interface StateChange {
  status?: TodoStatus;
  /** The new owner: the event's actor, a data field, or null (the claim ends). Absent: unchanged. */
  owner?: Operand | null;
  leaseExpiresAt?: Operand | null;
  /** The agent whose change goes under review (todos/review.ts). Absent: unchanged. */
  implementer?: Operand | null;
}

export interface TodoTransition {
  /** The statuses the event may start from. */
  from: readonly TodoStatus[];
  rules: readonly Rule[];
  /**
   * Rules the team store's database adds as the event arrives, reading what only it knows (`server` operands: its
   * clock, the logins). A replica never asks them: its log holds only what the database accepted, so they make the
   * database stricter than a replica, never looser (whatever it accepts, every replica applies). `team init`'s rebuild
   * of the state from an existing log skips them too: they judged each event when it arrived.
   */
  onArrival?: readonly Rule[];
  change: StateChange;
}

const state = (field: StateField): Operand => ({ state: field });
const eq = (left: Operand, right: Operand): Condition => ({ op: '=', left, right });
const actor: Operand = { event: 'actor' };
const at: Operand = { event: 'at' };
const isActorKind = (kind: string): Condition => eq({ event: 'actor_kind' }, { value: kind });
/** The lease has not run out at the event's time. */
const leaseLive: Condition = { op: '>', left: state('lease_expires_at'), right: at };
/** The event's actor holds the claim, its lease live (claims.ts requireLiveLease). */
const holder: Condition = { op: 'and', of: [eq(state('owner'), actor), leaseLive] };
const server = (what: 'now' | 'login' | 'claimLogin'): Operand => ({ server: what });
const HOLDER_REFUSAL = 'todo {todo} is claimed by {owner} (or its lease ran out); only the holder of a live claim may';
const REVIEWER_REFUSAL = 'todo {todo} is being reviewed by {owner} (or its review lease ran out); only its reviewer, or a person, may';
/** The reviewer holding a live review claim, or a person (whose verdict overrides: todos/review.ts). */
const reviewerOrPerson: Condition = { op: 'or', of: [isActorKind('human'), holder] };
/** The event's actor is not the agent whose change is under review. */
const notImplementer: Condition = { op: '<>', left: actor, right: state('implementer') };

/**
 * The table. Every todo event that changes or needs a todo's state is here; an event naming a todo (or a goal) that
 * does not exist is refused whatever its kind (`eventSubjects` below).
 */
export const TODO_TRANSITIONS = {
  'todo.claimed': {
    from: ['open', 'claimed'],
    rules: [
      {
        holds: { op: 'or', of: [eq(state('status'), { value: 'open' }), { op: '<=', left: state('lease_expires_at'), right: at }] },
        refusal: 'todo {todo} is claimed by {owner} and the lease has not run out',
      },
      { holds: eq({ data: 'owner' }, actor), refusal: 'a claim is written by the agent it names as owner' },
    ],
    change: { status: 'claimed', owner: { data: 'owner' }, leaseExpiresAt: { data: 'leaseExpiresAt' } },
  },
  'todo.renewed': {
    from: ['claimed'],
    rules: [{ holds: holder, refusal: `${HOLDER_REFUSAL} renew it` }],
    change: { leaseExpiresAt: { data: 'leaseExpiresAt' } },
  },
  'todo.released': {
    from: ['claimed'],
    // A person may take back any claim; the kernel releases a turn's claim when the turn ends (turns.ts).
    rules: [{ holds: { op: 'or', of: [isActorKind('human'), isActorKind('kernel'), holder] }, refusal: `${HOLDER_REFUSAL} release it` }],
    // The kernel's release from an agents' login: its own machine's claim (the turn it ends), or any claim whose lease
    // has run out by the server's clock. Else any login could end another machine's live claim as "the kernel".
    onArrival: [
      {
        holds: {
          op: 'or',
          of: [
            isActorKind('human'),
            isActorKind('agent'),
            eq(server('login'), server('claimLogin')),
            { op: '<=', left: state('lease_expires_at'), right: server('now') },
          ],
        },
        refusal:
          "todo {todo} is claimed by {owner} from another database login and its lease has not run out by the server's clock; the kernel releases such a claim only once its lease has run out",
      },
    ],
    change: { status: 'open', owner: null, leaseExpiresAt: null },
  },
  'todo.shipped': {
    from: ['claimed'],
    rules: [
      { holds: holder, refusal: `${HOLDER_REFUSAL} ship it` },
      {
        holds: { op: '>', left: state('evidence_count'), right: { value: 0 } },
        refusal: 'todo {todo} has no evidence; shipping needs some',
      },
    ],
    change: { status: 'shipped', owner: null, leaseExpiresAt: null },
  },
  'todo.blocked': {
    from: ['open', 'claimed'],
    // A person blocks anything not finished; an agent only what it holds (todos.ts blockTodo).
    rules: [{ holds: { op: 'or', of: [isActorKind('human'), holder] }, refusal: `${HOLDER_REFUSAL} block it` }],
    change: { status: 'blocked', owner: null, leaseExpiresAt: null },
  },
  'todo.unblocked': { from: ['blocked'], rules: [], change: { status: 'open' } },
  'todo.killed': {
    from: ['open', 'claimed', 'in_review', 'blocked'],
    rules: [],
    change: { status: 'killed', owner: null, leaseExpiresAt: null },
  },
  // Review (todos/review.ts): the implementer's ship, when its goal asks for review, submits the change instead.
  'todo.submitted': {
    from: ['claimed'],
    rules: [
      { holds: holder, refusal: `${HOLDER_REFUSAL} submit it for review` },
      {
        holds: { op: '>', left: state('evidence_count'), right: { value: 0 } },
        refusal: 'todo {todo} has no evidence; submitting it for review needs some',
      },
    ],
    change: { status: 'in_review', owner: null, leaseExpiresAt: null, implementer: actor },
  },
  'todo.review_claimed': {
    from: ['in_review'],
    rules: [
      {
        holds: {
          op: 'or',
          of: [
            { op: 'is', left: state('owner'), right: { value: null } },
            { op: '<=', left: state('lease_expires_at'), right: at },
          ],
        },
        refusal: 'todo {todo} is being reviewed by {owner} and the review lease has not run out',
      },
      { holds: eq({ data: 'owner' }, actor), refusal: 'a review claim is written by the agent it names as reviewer' },
      { holds: notImplementer, refusal: 'the implementer of todo {todo} may not review its own change' },
    ],
    change: { owner: { data: 'owner' }, leaseExpiresAt: { data: 'leaseExpiresAt' } },
  },
  'todo.review_released': {
    from: ['in_review'],
    rules: [{ holds: { op: 'or', of: [isActorKind('human'), isActorKind('kernel'), holder] }, refusal: `${REVIEWER_REFUSAL} release it` }],
    change: { owner: null, leaseExpiresAt: null },
  },
  // A verdict: a reviewer's (holding a live review claim) or a person's. Approval is the todo's ship.
  'todo.approved': {
    from: ['in_review'],
    rules: [
      { holds: reviewerOrPerson, refusal: `${REVIEWER_REFUSAL} approve it` },
      { holds: notImplementer, refusal: 'the implementer of todo {todo} may not approve its own change' },
    ],
    change: { status: 'shipped', owner: null, leaseExpiresAt: null },
  },
  'todo.changes_requested': {
    from: ['in_review'],
    rules: [
      { holds: reviewerOrPerson, refusal: `${REVIEWER_REFUSAL} ask for changes` },
      { holds: notImplementer, refusal: 'the implementer of todo {todo} may not judge its own change' },
    ],
    change: { status: 'open', owner: null, leaseExpiresAt: null },
  },
  // No verdict: the reviewer could not review (a tool failed, the check could not run), or the rounds ran out and a
  // person decides. Never an approval: the todo stays in review.
  'todo.review_unable': {
    from: ['in_review'],
    rules: [{ holds: { op: 'or', of: [isActorKind('kernel'), reviewerOrPerson] }, refusal: `${REVIEWER_REFUSAL} say so` }],
    change: { owner: null, leaseExpiresAt: null },
  },
  'handoff.accepted': {
    from: ['open', 'claimed'],
    rules: [
      {
        holds: {
          op: 'or',
          of: [
            eq(state('status'), { value: 'open' }),
            { op: '<=', left: state('lease_expires_at'), right: at },
            eq(state('owner'), { data: 'from' }),
          ],
        },
        refusal: 'todo {todo} has since been claimed by {owner}',
      },
    ],
    change: { status: 'claimed', owner: actor, leaseExpiresAt: { data: 'leaseExpiresAt' } },
  },
} as const satisfies Record<string, TodoTransition>;

export type TransitionKind = keyof typeof TODO_TRANSITIONS;

/** Whether an event of `kind` may start from a todo in `status`: the commands' status precondition. */
export function mayStartFrom(kind: TransitionKind, status: TodoStatus): boolean {
  return (TODO_TRANSITIONS[kind].from as readonly TodoStatus[]).includes(status);
}

/** The refusal for an event of `kind` met on a todo in a status it may not start from. */
export function statusRefusal(kind: string, from: readonly string[]): string {
  return `todo {todo} is {status}; ${kind} needs it ${from.join(' or ')}`;
}

/** The state of one todo as the rules read it. */
export interface TodoState {
  id: string;
  goalId: string;
  key: string | null;
  status: TodoStatus;
  owner: string | null;
  lease_expires_at: string | null;
  evidence_count: number;
  implementer: string | null;
}

/**
 * Why `e` is not a legal transition against the store's current state (SQLite's `todos` and `goals`), or null when it
 * is. applyEvent's check: the trigger the team store runs (teamTransitionSql.ts) decides the same from the same table.
 */
export function transitionRefusal(db: SqliteDb, e: StoredEvent): string | null {
  const data = (e.data ?? {}) as Record<string, unknown>;
  const goalExists = (id: string): boolean => db.prepare('SELECT 1 FROM goals WHERE id = ?').get(id) !== undefined;
  if (e.kind === 'goal.created') {
    if (e.goalId !== data.id) return `it names goal ${String(e.goalId)} but creates goal ${String(data.id)}`;
    if (goalExists(String(data.id))) return `goal ${String(data.id)} already exists`;
    return null;
  }
  if (e.goalId !== null && !goalExists(e.goalId)) return `goal ${e.goalId} does not exist`;
  if (e.kind === 'todo.added') {
    if (e.todoId !== data.id) return `it names todo ${String(e.todoId)} but adds todo ${String(data.id)}`;
    if (e.goalId === null) return 'a todo is added to a goal, and it names none';
    if (readTodo(db, String(data.id))) return `todo ${String(data.id)} already exists`;
    if (typeof data.key === 'string' && keyHolder(db, e.goalId, data.key) !== null) {
      return `goal ${e.goalId} already has a todo with key ${data.key}`;
    }
    return null;
  }
  if (e.kind === 'goal.file_applied' && e.goalId !== null) {
    const keys = Object.entries((data.keys ?? {}) as Record<string, string>);
    const twice = keys.find(([, id], i) => keys.findIndex(([, other]) => other === id) !== i);
    if (twice) return `it gives todo ${twice[1]} two keys`;
    for (const [key, id] of keys) {
      const held = keyHolder(db, e.goalId, key);
      if (held !== null && held !== id) return `goal ${e.goalId} already has todo ${held} with key ${key}`;
    }
  }
  if (e.todoId === null) return null;
  const todo = readTodo(db, e.todoId);
  if (!todo) return `todo ${e.todoId} does not exist`;
  const transition = (TODO_TRANSITIONS as Record<string, TodoTransition>)[e.kind];
  if (!transition) return null;
  const words = (text: string): string =>
    text
      .replaceAll('{todo}', todo.id)
      .replaceAll('{status}', todo.status)
      .replaceAll('{owner}', todo.owner ?? 'nobody');
  if (!transition.from.includes(todo.status)) return words(statusRefusal(e.kind, transition.from));
  for (const rule of transition.rules) if (!holds(rule.holds, todo, e, data)) return words(rule.refusal);
  return null;
}

function readTodo(db: SqliteDb, id: string): TodoState | null {
  const row = db
    .prepare('SELECT id, goal_id, key, status, owner, lease_expires_at, evidence_count, implementer FROM todos WHERE id = ?')
    .get(id);
  if (!row) return null;
  return {
    id: String(row.id),
    goalId: String(row.goal_id),
    key: (row.key as string | null) ?? null,
    status: row.status as TodoStatus,
    owner: (row.owner as string | null) ?? null,
    lease_expires_at: (row.lease_expires_at as string | null) ?? null,
    evidence_count: Number(row.evidence_count),
    implementer: (row.implementer as string | null) ?? null,
  };
}

function keyHolder(db: SqliteDb, goalId: string, key: string): string | null {
  const row = db.prepare('SELECT id FROM todos WHERE goal_id = ? AND key = ?').get(goalId, key);
  return row ? String(row.id) : null;
}

function holds(c: Condition, todo: TodoState, e: StoredEvent, data: Record<string, unknown>): boolean {
  if (isJunction(c)) return c.op === 'or' ? c.of.some((x) => holds(x, todo, e, data)) : c.of.every((x) => holds(x, todo, e, data));
  const left = valueOf(c.left, todo, e, data);
  const right = valueOf(c.right, todo, e, data);
  if (c.op === 'is') return left === right;
  if (left === null || right === null) return false;
  if (c.op === '=') return left === right;
  if (c.op === '<>') return left !== right;
  return c.op === '>' ? left > right : left <= right;
}

function valueOf(o: Operand, todo: TodoState, e: StoredEvent, data: Record<string, unknown>): string | number | null {
  if ('value' in o) return o.value;
  if ('state' in o) return todo[o.state];
  if ('event' in o) return o.event === 'actor' ? e.actor : o.event === 'at' ? e.at : e.actorKind;
  if ('server' in o) return null; // only the team store's database knows it (onArrival rules, never asked here)
  const v = data[o.data];
  return typeof v === 'string' || typeof v === 'number' ? v : null;
}

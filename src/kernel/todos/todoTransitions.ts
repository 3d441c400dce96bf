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
export type Operand =
  | { state: 'status' | 'owner' | 'lease_expires_at' | 'evidence_count' }
  | { event: 'actor' | 'actor_kind' | 'at' }
  | { data: string }
  | { value: string | number }
  /**
   * What only the team store's database knows as an event arrives (teamTransitionSql.ts): its clock (an ISO time, as
   * leases are written), the database login writing the event, the login that wrote the todo's claim.
   */
  | { server: 'now' | 'login' | 'claimLogin' };

export interface Comparison {
  op: '=' | '>' | '<=';
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

const state = (field: 'status' | 'owner' | 'lease_expires_at' | 'evidence_count'): Operand => ({ state: field });
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
  'todo.killed': { from: ['open', 'claimed', 'blocked'], rules: [], change: { status: 'killed', owner: null, leaseExpiresAt: null } },
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
  const row = db.prepare('SELECT id, goal_id, key, status, owner, lease_expires_at, evidence_count FROM todos WHERE id = ?').get(id);
  if (!row) return null;
  return {
    id: String(row.id),
    goalId: String(row.goal_id),
    key: (row.key as string | null) ?? null,
    status: row.status as TodoStatus,
    owner: (row.owner as string | null) ?? null,
    lease_expires_at: (row.lease_expires_at as string | null) ?? null,
    evidence_count: Number(row.evidence_count),
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
  if (left === null || right === null) return false;
  if (c.op === '=') return left === right;
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

import type { Row, SqliteDb } from '../db/sqliteDb';
import { NotFoundError } from '../errors';
import { type Todo, type TodoStatus, TODO_COLUMNS, isTerminalStatus, todoFromRow } from '../model';
import { describeMonitor, waitingMonitor } from '../monitors/monitorQueries';
import { limitSql } from '../db/limitSql';

export function getTodo(db: SqliteDb, id: string): Todo {
  const row = db.prepare(`SELECT ${TODO_COLUMNS} FROM todos t WHERE t.id = ?`).get(id);
  if (!row) throw new NotFoundError('todo', id);
  return todoFromRow(row);
}

/** The todo, or undefined when the store has none by that id (for readers that show "not found" themselves). */
export function findTodo(db: SqliteDb, id: string): Todo | undefined {
  const row = db.prepare(`SELECT ${TODO_COLUMNS} FROM todos t WHERE t.id = ?`).get(id);
  return row ? todoFromRow(row) : undefined;
}

/** A goal's todo by the key a goal file names it by, or by its id; undefined when the goal has no such todo. */
export function findGoalTodo(db: SqliteDb, goalId: string, by: { key: string } | { id: string }): Todo | undefined {
  const row =
    'key' in by
      ? db.prepare(`SELECT ${TODO_COLUMNS} FROM todos t WHERE t.goal_id = ? AND t.key = ?`).get(goalId, by.key)
      : db.prepare(`SELECT ${TODO_COLUMNS} FROM todos t WHERE t.goal_id = ? AND t.id = ?`).get(goalId, by.id);
  return row ? todoFromRow(row) : undefined;
}

/** The fields the rules look at, read without joins or parsing: the hot path of every write. */
export type TodoCore = Pick<Todo, 'id' | 'goalId' | 'status' | 'owner' | 'leaseExpiresAt' | 'reason' | 'implementer'>;

export function getTodoCore(db: SqliteDb, id: string): TodoCore {
  const row = db.prepare('SELECT id, goal_id, status, owner, lease_expires_at, reason, implementer FROM todos WHERE id = ?').get(id);
  if (!row) throw new NotFoundError('todo', id);
  return {
    id: row.id as string,
    goalId: row.goal_id as string,
    status: row.status as Todo['status'],
    owner: row.owner as string | null,
    leaseExpiresAt: row.lease_expires_at as string | null,
    reason: row.reason as string | null,
    implementer: row.implementer as string | null,
  };
}

/**
 * The lease rule, the one home for it: a lease is live while now is before its expiry (ISO-8601 UTC strings compare
 * in time order). A claim whose lease is not live is lapsed: anyone may claim it again.
 */
export function leaseLive(todo: Pick<Todo, 'status' | 'leaseExpiresAt'>, at: string): boolean {
  return todo.status === 'claimed' && todo.leaseExpiresAt !== null && todo.leaseExpiresAt > at;
}

/** The same rule for set queries, over the todos table under `alias` (each takes `at` once). */
export const leaseLiveSql = (alias = 't'): string => `(${alias}.status = 'claimed' AND ${alias}.lease_expires_at > ?)`;
export const leaseLapsedSql = (alias = 't'): string => `(${alias}.status = 'claimed' AND ${alias}.lease_expires_at <= ?)`;

/**
 * Claimable = open (or claimed with a lapsed lease), due (a recurring occurrence: its time has come), goal active,
 * every dependency shipped, no pending gate, no monitor waiting. Order: priority (0 first), then the order todos
 * were added. Takes `at` once, for the due time.
 */
export const READY_CONDITIONS = `
  (t.ready_at IS NULL OR t.ready_at <= ?)
  AND EXISTS (SELECT 1 FROM goals g WHERE g.id = t.goal_id AND g.status = 'active')
  AND NOT EXISTS (SELECT 1 FROM todo_deps d JOIN todos dt ON dt.id = d.depends_on WHERE d.todo_id = t.id AND dt.status <> 'shipped')
  AND NOT EXISTS (SELECT 1 FROM gates q WHERE q.todo_id = t.id AND q.status = 'pending')
  AND NOT EXISTS (SELECT 1 FROM monitors m WHERE m.todo_id = t.id AND m.status = 'waiting')`;

/** For listings: one predicate (takes `at` twice). */
export const CLAIMABLE_WHERE = `(t.status = 'open' OR ${leaseLapsedSql()}) AND ${READY_CONDITIONS}`;

/** Leaves out the todos named in a JSON array (one statement whatever their number). */
const EXCLUDED = 't.id NOT IN (SELECT value FROM json_each(?))';

/**
 * Claimable todos in claim order (priority, then age), the first `limit` of them (-1: all), with `columns` and the
 * claim order's own. Open todos and lapsed claims are looked up separately: each walks an index in claim order and
 * stops once it has `limit` ready rows, and the two are merged, instead of checking every candidate and sorting them
 * all (10x faster for the first on a large board; 16 ms for a page of 50 with 17,000 ready).
 */
function claimableRows(
  db: SqliteDb,
  at: string,
  columns: string,
  o: { goalId?: string; exclude?: readonly string[]; limit: number },
): Row[] {
  const scope = o.goalId ? 't.goal_id = ? AND ' : '';
  const args: string[] = o.goalId ? [o.goalId] : [];
  // The statements without exclusions stay as they were: that is every call but a scheduler's after a failed turn.
  const skip = o.exclude?.length ? `${EXCLUDED} AND ` : '';
  if (o.exclude?.length) args.push(JSON.stringify(o.exclude));
  // The limit is written into the statement (limitSql: a bound one is prepared again each run; status asks per goal).
  const limit = limitSql(o.limit);
  const walk = (which: string, whichArgs: string[]) =>
    db
      .prepare(
        `SELECT ${columns}, t.priority AS claim_priority, t.num AS claim_num FROM todos t
          WHERE ${scope}${skip}${which} AND ${READY_CONDITIONS} ORDER BY t.priority, t.num ${limit}`,
      )
      .all(...args, ...whichArgs, at);
  return [...walk("t.status = 'open'", []), ...walk(leaseLapsedSql(), [at])].sort(
    (a, b) => Number(a.claim_priority) - Number(b.claim_priority) || Number(a.claim_num) - Number(b.claim_num),
  );
}

export function firstClaimableId(db: SqliteDb, at: string, goalId?: string, exclude: readonly string[] = []): string | null {
  const best = claimableRows(db, at, 't.id', { goalId, exclude, limit: 1 })[0];
  return best ? String(best.id) : null;
}

/** Whether one todo could be claimed now. */
export function claimableNow(db: SqliteDb, at: string, todoId: string): boolean {
  return db.prepare(`SELECT 1 FROM todos t WHERE t.id = ? AND ${CLAIMABLE_WHERE}`).get(todoId, at, at) !== undefined;
}

/** The todo `claim --next` takes: the first claimable in claim order, leaving out `exclude` (a turn start's rule). */
export function nextClaimable(db: SqliteDb, at: string, goalId?: string, exclude: readonly string[] = []): Todo | null {
  const id = firstClaimableId(db, at, goalId, exclude);
  if (id === null) return null;
  const row = db.prepare(`SELECT ${TODO_COLUMNS} FROM todos t WHERE t.id = ?`).get(id);
  return row ? todoFromRow(row) : null;
}

export function hasClaimable(db: SqliteDb, at: string, goalId: string, exclude: readonly string[] = []): boolean {
  return firstClaimableId(db, at, goalId, exclude) !== null;
}

/**
 * The open todos a claim could take now, of one goal or of all: the board's Ready column and the Goals view's
 * Ready group (a lapsed claim is claimable too, but it shows where it is: in progress, lapsed).
 */
export function readyTodoIds(db: SqliteDb, at: string, goalId?: string): Set<string> {
  const scope = goalId ? 't.goal_id = ? AND ' : '';
  const rows = db
    .prepare(`SELECT t.id FROM todos t WHERE ${scope}t.status = 'open' AND ${READY_CONDITIONS}`)
    .all(...(goalId ? [goalId] : []), at);
  return new Set(rows.map((r) => String(r.id)));
}

/** The board's columns and the Goals view's groups, in order (the webview keeps a copy, pinned by a test). */
export const BOARD_COLUMNS = ['ready', 'waiting', 'claimed', 'in_review', 'blocked', 'shipped', 'killed'] as const;
export type BoardColumn = (typeof BOARD_COLUMNS)[number];

/** Which column a todo is in: its status, with open todos split by readiness (`readyTodoIds`). */
export function boardColumn(status: Todo['status'], ready: boolean): BoardColumn {
  return status === 'open' ? (ready ? 'ready' : 'waiting') : status;
}

export type Readiness =
  | { ready: true }
  | {
      ready: false;
      why: 'terminal' | 'claimed' | 'in_review' | 'blocked' | 'goal_inactive' | 'dependencies' | 'gate_pending' | 'monitor' | 'scheduled';
      detail: string;
      ids: string[];
    };

/** Explains why a todo can or cannot be claimed now (used in refusals and by the board's Waiting column). */
export function readiness(db: SqliteDb, todo: TodoCore, at: string): Readiness {
  if (isTerminalStatus(todo.status)) {
    return { ready: false, why: 'terminal', detail: `it is ${todo.status}`, ids: [] };
  }
  if (todo.status === 'blocked') return { ready: false, why: 'blocked', detail: `it is blocked: ${todo.reason ?? ''}`, ids: [] };
  // Its change waits for (or is under) review: a review turn takes it, never a claim (todos/review.ts).
  if (todo.status === 'in_review')
    return { ready: false, why: 'in_review', detail: 'its change is in review; a review turn takes it, or a person decides', ids: [] };
  if (leaseLive(todo, at)) {
    return { ready: false, why: 'claimed', detail: `it is claimed by ${todo.owner} until ${todo.leaseExpiresAt}`, ids: [] };
  }
  const goal = db.prepare('SELECT status FROM goals WHERE id = ?').get(todo.goalId);
  if (goal?.status !== 'active') {
    return { ready: false, why: 'goal_inactive', detail: `its goal ${todo.goalId} is ${String(goal?.status)}`, ids: [todo.goalId] };
  }
  const waiting = db
    .prepare(
      `SELECT dt.id, dt.status FROM todo_deps d JOIN todos dt ON dt.id = d.depends_on
        WHERE d.todo_id = ? AND dt.status <> 'shipped' ORDER BY dt.num`,
    )
    .all(todo.id);
  if (waiting.length > 0) {
    const list = waiting.map((r) => `${String(r.id)} (${String(r.status)})`).join(', ');
    return { ready: false, why: 'dependencies', detail: `it depends on unshipped ${list}`, ids: waiting.map((r) => String(r.id)) };
  }
  const gates = db.prepare(`SELECT id FROM gates WHERE todo_id = ? AND status = 'pending' ORDER BY num`).all(todo.id);
  if (gates.length > 0) {
    const ids = gates.map((r) => String(r.id));
    return { ready: false, why: 'gate_pending', detail: `gate ${ids.join(', ')} awaits a human decision`, ids };
  }
  const monitor = waitingMonitor(db, todo.id);
  if (monitor) {
    const next =
      monitor.kind === 'timer'
        ? ''
        : monitor.approval === 'pending'
          ? ', whose check waits for a person to allow it'
          : `, next check at ${monitor.nextCheckAt}`;
    return {
      ready: false,
      why: 'monitor',
      detail: `it waits on monitor ${monitor.id} (${describeMonitor(monitor)}${next})`,
      ids: [monitor.id],
    };
  }
  const due = db.prepare('SELECT ready_at FROM todos WHERE id = ?').get(todo.id)?.ready_at as string | null | undefined;
  if (due && due > at) return { ready: false, why: 'scheduled', detail: `it is scheduled for ${due}`, ids: [] };
  return { ready: true };
}

export interface TodoFilter {
  goalId?: string;
  status?: TodoStatus;
  /** Only todos a claim could take now, in claim order. */
  ready?: boolean;
  limit?: number;
  /** Skip this many first (paging, with limit). */
  offset?: number;
}

function todoWhere(at: string, filter: TodoFilter): { sql: string; params: string[] } {
  const where: string[] = [];
  const params: string[] = [];
  if (filter.goalId) {
    where.push('t.goal_id = ?');
    params.push(filter.goalId);
  }
  if (filter.status) {
    where.push('t.status = ?');
    params.push(filter.status);
  }
  if (filter.ready) {
    where.push(CLAIMABLE_WHERE);
    params.push(at, at);
  }
  return { sql: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}

export function listTodos(db: SqliteDb, at: string, filter: TodoFilter = {}): Todo[] {
  if (filter.ready && !filter.status) return readyTodos(db, at, filter);
  const { sql: where, params } = todoWhere(at, filter);
  const order = filter.ready ? 't.priority, t.num' : 't.num';
  const limit = filter.limit ? Math.max(1, filter.limit) : filter.offset ? -1 : undefined;
  const page = limit === undefined ? '' : ` ${limitSql(limit, Math.max(0, filter.offset ?? 0))}`;
  const sql = `SELECT ${TODO_COLUMNS} FROM todos t ${where} ORDER BY ${order}${page}`;
  return db
    .prepare(sql)
    .all(...params)
    .map(todoFromRow);
}

/** A page of claimable todos in claim order, walked as `firstClaimableId` finds the first (`claimableRows`). */
function readyTodos(db: SqliteDb, at: string, filter: TodoFilter): Todo[] {
  const offset = Math.max(0, Math.floor(filter.offset ?? 0));
  const end = filter.limit ? offset + Math.max(1, Math.floor(filter.limit)) : -1;
  const rows = claimableRows(db, at, TODO_COLUMNS, { goalId: filter.goalId, limit: end });
  return rows.slice(offset, end === -1 ? undefined : end).map(todoFromRow);
}

/** Todos of one goal in one status, in claim order (priority, then age): the Goals view's groups. */
export function todosInClaimOrder(db: SqliteDb, goalId: string, status: TodoStatus): Todo[] {
  return db
    .prepare(`SELECT ${TODO_COLUMNS} FROM todos t WHERE t.goal_id = ? AND t.status = ? ORDER BY t.priority, t.num`)
    .all(goalId, status)
    .map(todoFromRow);
}

/**
 * How many todos the filter matches (limit and offset aside): what a page of `listTodos` left out. By goal and status
 * it is the sum of the counts the store keeps as todos change (migration 0016: a handful of rows, where counting the
 * todos walked an index of every todo, 0.5 ms at 100,000); only readiness is judged todo by todo.
 */
export function countTodos(db: SqliteDb, at: string, filter: TodoFilter = {}): number {
  if (!filter.ready) {
    const where = [filter.goalId ? 'goal_id = ?' : '', filter.status ? 'status = ?' : ''].filter(Boolean);
    const params = [filter.goalId, filter.status].filter((v): v is string => Boolean(v));
    const sql = `SELECT coalesce(sum(n), 0) AS n FROM todo_counts${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
    return Number(db.prepare(sql).get(...params)?.n ?? 0);
  }
  if (!filter.status) return countReady(db, at, filter.goalId);
  const { sql: where, params } = todoWhere(at, filter);
  return Number(db.prepare(`SELECT count(*) AS n FROM todos t ${where}`).get(...params)?.n ?? 0);
}

/**
 * How many todos are claimable now (CLAIMABLE_WHERE), of one goal or of all, without judging each: the open todos
 * without a hold that the store keeps by goal (`open_unheld`, migration 0023: a dependency not shipped, a pending
 * gate, a waiting monitor — READY_CONDITIONS' last three), of the active goals, less those whose due time is still
 * ahead, plus the lapsed claims without a hold. Those two are the few rows time decides, each found by an index.
 * Held equal to counting CLAIMABLE_WHERE by replay.property.test.ts's random histories.
 */
function countReady(db: SqliteDb, at: string, goalId?: string): number {
  const scope = goalId ? 'AND t.goal_id = ? ' : '';
  const mine = `${scope}AND EXISTS (SELECT 1 FROM goals g WHERE g.id = t.goal_id AND g.status = 'active')
    AND NOT EXISTS (SELECT 1 FROM todo_holds h WHERE h.todo_id = t.id AND h.n <> 0)`;
  const goal = goalId ? [goalId] : [];
  // Each walk by its own index (INDEXED BY: by status alone, SQLite would walk every open or claimed todo).
  const row = db
    .prepare(
      `SELECT
        (SELECT coalesce(sum(open_unheld.n), 0) FROM open_unheld JOIN goals ON goals.id = open_unheld.goal_id
          WHERE goals.status = 'active'${goalId ? ' AND open_unheld.goal_id = ?' : ''})
        - (SELECT count(*) FROM todos t INDEXED BY todos_later
            WHERE t.status = 'open' AND t.ready_at IS NOT NULL AND t.ready_at > ? ${mine})
        + (SELECT count(*) FROM todos t INDEXED BY todos_lapsing
            WHERE ${leaseLapsedSql()} AND (t.ready_at IS NULL OR t.ready_at <= ?) ${mine}) AS n`,
    )
    .get(...goal, at, ...goal, at, at, ...goal);
  return Number(row?.n ?? 0);
}

/** One page of todos and how many matching todos come after it. */
export function todoPage(db: SqliteDb, at: string, filter: TodoFilter & { limit: number }): { todos: Todo[]; more: number } {
  const offset = Math.max(0, Math.floor(filter.offset ?? 0));
  const todos = listTodos(db, at, { ...filter, offset });
  const more = todos.length < filter.limit ? 0 : Math.max(0, countTodos(db, at, filter) - offset - todos.length);
  return { todos, more };
}

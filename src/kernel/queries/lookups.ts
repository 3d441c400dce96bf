import type { SqliteDb } from '../db/sqliteDb';
import { NotFoundError } from '../errors';
import { type Gate, type Goal, type Todo, TODO_COLUMNS, gateFromRow, goalFromRow, todoFromRow } from '../model';

/** Single-entity reads shared by operations and queries. Unknown ids are NotFoundError (exit 4). */
export function getGoal(db: SqliteDb, id: string): Goal {
  const row = db.prepare('SELECT * FROM goals WHERE id = ?').get(id);
  if (!row) throw new NotFoundError('goal', id);
  return goalFromRow(row);
}

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

/** The goal, or undefined (looked up by id, or by the goal file it was applied from). */
export function findGoal(db: SqliteDb, by: { id: string } | { filePath: string }): Goal | undefined {
  const row =
    'id' in by
      ? db.prepare('SELECT * FROM goals WHERE id = ?').get(by.id)
      : db.prepare('SELECT * FROM goals WHERE file_path = ?').get(by.filePath);
  return row ? goalFromRow(row) : undefined;
}

/** A goal's todo by the key a goal file names it by, or by its id; undefined when the goal has no such todo. */
export function findGoalTodo(db: SqliteDb, goalId: string, by: { key: string } | { id: string }): Todo | undefined {
  const row =
    'key' in by
      ? db.prepare(`SELECT ${TODO_COLUMNS} FROM todos t WHERE t.goal_id = ? AND t.key = ?`).get(goalId, by.key)
      : db.prepare(`SELECT ${TODO_COLUMNS} FROM todos t WHERE t.goal_id = ? AND t.id = ?`).get(goalId, by.id);
  return row ? todoFromRow(row) : undefined;
}

export function getGate(db: SqliteDb, id: string): Gate {
  const row = db.prepare('SELECT * FROM gates WHERE id = ?').get(id);
  if (!row) throw new NotFoundError('gate', id);
  return gateFromRow(row);
}

/** The fields the rules look at, read without joins or parsing: the hot path of every write. */
export type TodoCore = Pick<Todo, 'id' | 'goalId' | 'status' | 'owner' | 'leaseExpiresAt' | 'reason'>;

export function getTodoCore(db: SqliteDb, id: string): TodoCore {
  const row = db.prepare('SELECT id, goal_id, status, owner, lease_expires_at, reason FROM todos WHERE id = ?').get(id);
  if (!row) throw new NotFoundError('todo', id);
  return {
    id: row.id as string,
    goalId: row.goal_id as string,
    status: row.status as Todo['status'],
    owner: row.owner as string | null,
    leaseExpiresAt: row.lease_expires_at as string | null,
    reason: row.reason as string | null,
  };
}

/** The lease token is internal (fencing); it never leaves the kernel through the API shapes. */
export function leaseToken(db: SqliteDb, todoId: string): string | null {
  const row = db.prepare('SELECT lease_token FROM todos WHERE id = ?').get(todoId);
  return (row?.lease_token as string | null | undefined) ?? null;
}

export function pendingGateIds(db: SqliteDb, todoId: string): string[] {
  return db
    .prepare(`SELECT id FROM gates WHERE todo_id = ? AND status = 'pending' ORDER BY num`)
    .all(todoId)
    .map((r) => String(r.id));
}

export function evidenceCount(db: SqliteDb, todoId: string): number {
  return Number(db.prepare('SELECT evidence_count AS n FROM todos WHERE id = ?').get(todoId)?.n ?? 0);
}

export function nextNum(db: SqliteDb, table: 'goals' | 'todos' | 'gates' | 'handoffs' | 'turns' | 'monitors' | 'hooks'): number {
  // Above the highest number this store ever handed out, even if a restore brought back an older content.
  return Number(
    db
      .prepare(
        `SELECT max(coalesce((SELECT max(num) FROM ${table}), 0), coalesce((SELECT num FROM id_high_water WHERE entity = ?), 0)) + 1 AS n`,
      )
      .get(table)?.n ?? 1,
  );
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

import type { SqliteDb } from '../db/sqliteDb';
import type { EventKind, StoredEvent } from './eventTypes';

/** The state change of one event kind: the only code that writes state tables (see events/log.ts). */
export type Reducer<K extends EventKind> = (db: SqliteDb, e: Extract<StoredEvent, { kind: K }>) => void;
/** One noun's reducers, one per kind it owns; events/log.ts spreads every noun's into the one table replay also uses. */
export type ReducersOf<K extends EventKind> = { [P in K]: Reducer<P> };

/** Touches a todo row: every todo change bumps its revision and stamps the event time. */
export function touchTodo(db: SqliteDb, todoId: string | null, at: string, assignments: string, params: (string | number | null)[]): void {
  const result = db
    .prepare(`UPDATE todos SET ${assignments}, revision = revision + 1, updated_at = ? WHERE id = ?`)
    .run(...params, at, todoId);
  if (result.changes !== 1) throw new Error(`event applies to unknown todo ${todoId}`);
}

/** What every change that ends a claim clears. */
export const CLEAR_LEASE = 'owner = NULL, lease_token = NULL, lease_expires_at = NULL';

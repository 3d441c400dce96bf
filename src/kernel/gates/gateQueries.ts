import type { SqliteDb } from '../db/sqliteDb';
import { type Gate, gateFromRow } from '../model';
import { NotFoundError } from '../errors';
import { limitSql } from '../db/limitSql';

export function getGate(db: SqliteDb, id: string): Gate {
  const row = db.prepare('SELECT * FROM gates WHERE id = ?').get(id);
  if (!row) throw new NotFoundError('gate', id);
  return gateFromRow(row);
}

export function pendingGateIds(db: SqliteDb, todoId: string): string[] {
  return db
    .prepare(`SELECT id FROM gates WHERE todo_id = ? AND status = 'pending' ORDER BY num`)
    .all(todoId)
    .map((r) => String(r.id));
}

export function listGates(db: SqliteDb, filter: { pending?: boolean; goalId?: string; limit?: number } = {}): Gate[] {
  const limit = filter.limit === undefined ? '' : ` ${limitSql(Math.max(1, filter.limit))}`;
  const rows = filter.pending
    ? db.prepare(`SELECT * FROM gates WHERE status = 'pending' ${filter.goalId ? 'AND goal_id = ?' : ''} ORDER BY num${limit}`)
    : db.prepare(`SELECT * FROM gates ${filter.goalId ? 'WHERE goal_id = ?' : ''} ORDER BY status <> 'pending', num DESC${limit}`);
  return (filter.goalId ? rows.all(filter.goalId) : rows.all()).map(gateFromRow);
}

import type { SqliteDb } from '../db/sqliteDb';
import { NotFoundError } from '../errors';
import { type Goal, goalFromRow } from '../model';

/** A goal by id (unknown: NotFoundError, exit 4). */
export function getGoal(db: SqliteDb, id: string): Goal {
  const row = db.prepare('SELECT * FROM goals WHERE id = ?').get(id);
  if (!row) throw new NotFoundError('goal', id);
  return goalFromRow(row);
}

/** The goal, or undefined (looked up by id, or by the goal file it was applied from). */
export function findGoal(db: SqliteDb, by: { id: string } | { filePath: string }): Goal | undefined {
  const row =
    'id' in by
      ? db.prepare('SELECT * FROM goals WHERE id = ?').get(by.id)
      : db.prepare('SELECT * FROM goals WHERE file_path = ?').get(by.filePath);
  return row ? goalFromRow(row) : undefined;
}

export function listGoals(db: SqliteDb): Goal[] {
  return db.prepare('SELECT * FROM goals ORDER BY num').all().map(goalFromRow);
}

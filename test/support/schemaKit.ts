import type { SqliteDb } from '../../src/kernel/db/sqliteDb';

/**
 * Test support: a store's schema as schema 15 left it, before the counts kept by triggers (migration 0016): its
 * triggers and table dropped, so that a test can run migration 16 (or a verb's own migrate) on a store that has todos.
 */
export function withoutKeptCounts(db: SqliteDb): void {
  for (const trigger of ['todo_counts_added', 'todo_counts_moved', 'todo_counts_removed']) db.exec(`DROP TRIGGER ${trigger}`);
  db.exec('DROP TABLE todo_counts');
}

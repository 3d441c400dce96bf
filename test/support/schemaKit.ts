import type { SqliteDb } from '../../src/kernel/db/sqliteDb';
import { SCHEMA_VERSION } from '../../src/kernel/db/migrate';

/**
 * Test support: a store's schema as an older version left it, so that a test can run a migration (or a verb's own
 * migrate) on a store that has rows. Each recent migration's undo, by the version it brings a store to; a new
 * migration adds its own here (backToSchema says so when it is missing).
 */
const UNDO: Record<number, string> = {
  16: `DROP TRIGGER todo_counts_added; DROP TRIGGER todo_counts_moved; DROP TRIGGER todo_counts_removed;
       DROP TABLE todo_counts;`,
  17: 'DROP INDEX turns_open_goal; DROP INDEX turns_usage_goal; DROP INDEX quota_spends_turn;',
  18: 'DROP TABLE store_meta;',
  19: 'ALTER TABLE turns DROP COLUMN cache_write_tokens; ALTER TABLE prices DROP COLUMN cache_write;',
  20: 'ALTER TABLE goals DROP COLUMN host;',
  // The rebuilt todos keep their new CHECK (it allows in_review): only the columns an older schema lacks go.
  21: `DROP TABLE reviews; ALTER TABLE goals DROP COLUMN review;
       ALTER TABLE todos DROP COLUMN implementer; ALTER TABLE todos DROP COLUMN review_round; ALTER TABLE todos DROP COLUMN review; ALTER TABLE turns DROP COLUMN role;`,
  22: 'DROP INDEX reviews_changes_asked; DROP INDEX turns_window_usage;',
  23: `DROP TRIGGER holds_dependency_added; DROP TRIGGER holds_dependency_removed; DROP TRIGGER holds_dependency_appeared;
       DROP TRIGGER holds_dependency_shipped; DROP TRIGGER holds_dependency_gone; DROP TRIGGER holds_gate_added;
       DROP TRIGGER holds_gate_moved; DROP TRIGGER holds_gate_removed; DROP TRIGGER holds_monitor_added;
       DROP TRIGGER holds_monitor_moved; DROP TRIGGER holds_monitor_removed; DROP TRIGGER open_unheld_added;
       DROP TRIGGER open_unheld_moved; DROP TRIGGER open_unheld_removed; DROP TRIGGER open_unheld_held;
       DROP TRIGGER open_unheld_holds_changed; DROP TABLE todo_holds; DROP TABLE open_unheld; DROP INDEX todos_later; DROP INDEX todos_lapsing;`,
};

/** Takes an up-to-date store back to `version`: each later migration undone, newest first, and the version set. */
export function backToSchema(db: SqliteDb, version: number): void {
  for (let v = SCHEMA_VERSION; v > version; v--) {
    const undo = UNDO[v];
    if (!undo) throw new Error(`test/support/schemaKit.ts has no undo for migration ${v}: add one`);
    db.exec(undo);
  }
  db.exec(`PRAGMA user_version = ${version}`);
}

/** The store as schema 15 left it, before the counts kept by triggers (migration 0016): its triggers and table dropped. */
export function withoutKeptCounts(db: SqliteDb): void {
  db.exec(UNDO[16] as string);
}

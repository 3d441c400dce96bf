import type { SqliteDb } from './sqliteDb';
import { immediate } from './sqliteDb';
import { SchemaTooNewError } from '../errors';
import { migrationSql } from './migrationSql';
import { LOOPX_VERSION } from '../../shared/version';

/**
 * The schema this code writes: the number of migrations (src/kernel/db/migrationSql.ts; migrate.test.ts holds the two
 * equal). A number here, not `MIGRATIONS.length`, so that opening a store that is up to date loads none of their SQL:
 * an agent verb's bundle loads migrationSql.js by path only when a store is older (esbuild.mjs, byPath).
 */
export const SCHEMA_VERSION = 23;

export function schemaVersion(db: SqliteDb): number {
  return Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
}

/**
 * The loopx version that last migrated this store's schema (migration 0018's `store_meta`); null for a store whose
 * schema an older loopx wrote, or one this connection cannot read it from.
 */
export function schemaWrittenBy(db: SqliteDb): string | null {
  try {
    const row = db.prepare("SELECT value FROM store_meta WHERE key = 'schema_written_by'").get();
    return typeof row?.value === 'string' ? row.value : null;
  } catch {
    return null; // no store_meta yet: a schema before 18
  }
}

/** The refusal of a store whose schema is newer than this code, naming the loopx that wrote it when the store says. */
export function schemaTooNew(db: SqliteDb, found: number): SchemaTooNewError {
  return new SchemaTooNewError(found, SCHEMA_VERSION, schemaWrittenBy(db));
}

/** Brings the schema up to date; refuses (and changes nothing) when the store is newer than this code. */
export function migrate(db: SqliteDb): { from: number; to: number } {
  const from = schemaVersion(db);
  if (from > SCHEMA_VERSION) throw schemaTooNew(db, from);
  if (from === SCHEMA_VERSION) return { from, to: from };
  // A migration that rebuilds a table (0021: `todos`, whose rows other tables reference) needs foreign keys off, which
  // only changes outside a transaction; they are checked over the whole result before the commit instead.
  db.exec('PRAGMA foreign_keys = OFF');
  try {
    migrateInLock(db);
  } finally {
    db.exec('PRAGMA foreign_keys = ON');
  }
  return { from, to: SCHEMA_VERSION };
}

function migrateInLock(db: SqliteDb): void {
  immediate(db, () => {
    // Re-read inside the write lock: another process may have migrated meanwhile.
    const current = schemaVersion(db);
    if (current > SCHEMA_VERSION) throw schemaTooNew(db, current);
    if (current === SCHEMA_VERSION) return; // another process migrated it meanwhile: it wrote itself down
    for (let v = current; v < SCHEMA_VERSION; v++) {
      db.exec(migrationSql(v));
      db.exec(`PRAGMA user_version = ${v + 1}`);
    }
    const dangling = db.prepare('PRAGMA foreign_key_check').all();
    if (dangling.length > 0)
      throw new Error(`the schema's migration left ${dangling.length} dangling references (${JSON.stringify(dangling[0])})`);
    db.prepare(
      "INSERT INTO store_meta (key, value) VALUES ('schema_written_by', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ).run(LOOPX_VERSION);
  });
}

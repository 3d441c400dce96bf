import type { SqliteDb } from './sqliteDb';
import { immediate } from './sqliteDb';
import { SchemaTooNewError } from '../errors';
import { migrationSql } from './migrationSql';

/**
 * The schema this code writes: the number of migrations (src/kernel/db/migrationSql.ts; migrate.test.ts holds the two
 * equal). A number here, not `MIGRATIONS.length`, so that opening a store that is up to date loads none of their SQL:
 * an agent verb's bundle loads migrationSql.js by path only when a store is older (esbuild.mjs, byPath).
 */
export const SCHEMA_VERSION = 17;

export function schemaVersion(db: SqliteDb): number {
  return Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
}

/** Brings the schema up to date; refuses (and changes nothing) when the store is newer than this code. */
export function migrate(db: SqliteDb): { from: number; to: number } {
  const from = schemaVersion(db);
  if (from > SCHEMA_VERSION) throw new SchemaTooNewError(from, SCHEMA_VERSION);
  if (from === SCHEMA_VERSION) return { from, to: from };
  immediate(db, () => {
    // Re-read inside the write lock: another process may have migrated meanwhile.
    const current = schemaVersion(db);
    if (current > SCHEMA_VERSION) throw new SchemaTooNewError(current, SCHEMA_VERSION);
    for (let v = current; v < SCHEMA_VERSION; v++) {
      db.exec(migrationSql(v));
      db.exec(`PRAGMA user_version = ${v + 1}`);
    }
  });
  return { from, to: SCHEMA_VERSION };
}

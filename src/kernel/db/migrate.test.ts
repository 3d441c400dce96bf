import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { Kernel } from '../kernel';
import { openDb } from './openDb';
import { SCHEMA_VERSION, schemaVersion, schemaWrittenBy } from './migrate';
import { LOOPX_VERSION } from '../../shared/version';
import { SchemaTooNewError } from '../errors';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const workspace = () => {
  const d = mkdtempSync(join(tmpdir(), 'loopx-migrate-'));
  dirs.push(d);
  return d;
};

test('a new store records the current schema version and the pragmas every connection needs', () => {
  const root = workspace();
  const { kernel, created } = Kernel.init(root);
  expect(created).toBe(true);
  expect(kernel.schemaVersion).toBe(SCHEMA_VERSION);
  expect(kernel.db.prepare('PRAGMA journal_mode').get()?.journal_mode).toBe('wal');
  expect(Number(kernel.db.prepare('PRAGMA foreign_keys').get()?.foreign_keys)).toBe(1);
  expect(Number(kernel.db.prepare('PRAGMA busy_timeout').get()?.timeout)).toBeGreaterThanOrEqual(5000);
  kernel.close();
});

test('init reuses an existing store and never overwrites it', () => {
  const root = workspace();
  const first = Kernel.init(root);
  first.kernel.db.exec(`CREATE TABLE marker (x)`); // something init must not destroy
  first.kernel.close();
  const again = Kernel.init(root);
  expect(again.created).toBe(false);
  expect(again.kernel.db.prepare(`SELECT name FROM sqlite_master WHERE name = 'marker'`).get()).toBeDefined();
  expect(Number(again.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n)).toBe(1);
  again.kernel.close();
});

test('a store with a newer schema is refused with a clear message and left untouched', () => {
  const root = workspace();
  Kernel.init(root).kernel.close();
  const path = Kernel.storePath(root);
  const db = openDb(path);
  db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
  db.close();
  const bytes = readFileSync(path);
  let error: unknown;
  try {
    Kernel.open(root);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(SchemaTooNewError);
  expect((error as SchemaTooNewError).message).toContain(`schema version ${SCHEMA_VERSION + 1}`);
  expect((error as SchemaTooNewError).exitCode).toBe(3);
  expect(readFileSync(path).equals(bytes)).toBe(true);
  const check = openDb(path);
  expect(schemaVersion(check)).toBe(SCHEMA_VERSION + 1);
  check.close();
});

test('a store a newer loopx migrated names that loopx, and says how to get it; this loopx records itself when it migrates', () => {
  const root = workspace();
  Kernel.init(root).kernel.close();
  const path = Kernel.storePath(root);
  const db = openDb(path);
  expect(schemaWrittenBy(db), 'the loopx that made the schema (from source: its dev version)').toBe(LOOPX_VERSION);
  db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
  db.exec("UPDATE store_meta SET value = '0.9.0' WHERE key = 'schema_written_by'");
  db.close();
  const error = (() => {
    try {
      Kernel.open(root);
    } catch (e) {
      return e as SchemaTooNewError;
    }
    throw new Error('a newer store was opened');
  })();
  expect(error.message).toBe(
    `this store has schema version ${SCHEMA_VERSION + 1}, written by loopx 0.9.0; this loopx (${LOOPX_VERSION}) only knows versions up to ${SCHEMA_VERSION}`,
  );
  expect(error.hint).toMatch(
    /^install loopx 0\.9\.0 or newer: update the LoopX extension in VS Code, or the loopx you installed with npm; the store was left untouched$/,
  );
  // The language server's read-only open says the same.
  expect(() => Kernel.openReadOnly(root)).toThrow(expect.objectContaining({ code: 'schema_too_new', message: error.message }));
});

test('opening a workspace without a store is "no store" (exit 5)', () => {
  expect(() => Kernel.open(workspace())).toThrow(expect.objectContaining({ code: 'no_store', exitCode: 5 }));
});

test('a store of schema 2 with work in it is migrated in place: its todos read back, monitors and checks start empty', async () => {
  const root = workspace();
  const { MIGRATIONS } = await import('./migrationSql');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(root, '.loopx'), { recursive: true });
  const old = openDb(Kernel.storePath(root));
  old.exec(MIGRATIONS[0] as string);
  old.exec(MIGRATIONS[1] as string);
  old.exec('PRAGMA user_version = 2');
  old.exec(
    `INSERT INTO goals VALUES ('G1', 1, 'g', '', '[]', 'active', 5, 24, 1, 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
  );
  old.exec(`INSERT INTO todos (id, num, goal_id, title, detail, priority, status, continuation, depends_on, evidence_count, revision, created_at, updated_at)
    VALUES ('T1', 1, 'G1', 't', '', 2, 'open', '', '', 0, 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`);
  old.close();
  const kernel = Kernel.open(root);
  try {
    expect(kernel.schemaVersion).toBe(SCHEMA_VERSION);
    const { getTodo } = await import('../todos/todoQueries');
    const { getGoal } = await import('../goals/goalQueries');
    expect(getTodo(kernel.db, 'T1')).toMatchObject({ id: 'T1', check: null, recurrence: null, readyAt: null, previousId: null });
    expect(getGoal(kernel.db, 'G1').check).toBeNull();
    expect(Number(kernel.db.prepare('SELECT count(*) AS n FROM monitors').get()?.n)).toBe(0);
  } finally {
    kernel.close();
  }
});

test('the schema version this code writes is the number of migrations (a new migration raises SCHEMA_VERSION with it)', async () => {
  const { MIGRATIONS } = await import('./migrationSql');
  expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
});

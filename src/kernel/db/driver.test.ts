import { expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseDriver, openDb } from './openDb';
import { loadNodeSqlite } from './nodeSqliteDriver';

const hasNodeSqlite = loadNodeSqlite() !== null;

test('the driver follows the runtime: node:sqlite where it exists, better-sqlite3 otherwise', () => {
  const expected = process.env.LOOPX_SQLITE_DRIVER === 'better' ? 'better-sqlite3' : hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3';
  expect(chooseDriver()).toBe(expected);
  const db = openDb(':memory:');
  expect(db.driver).toBe(expected);
  expect(db.prepare('SELECT 1 + 1 AS two').get()).toEqual({ two: 2 });
  db.close();
});

test.runIf(!hasNodeSqlite)('asking for node:sqlite on a runtime without it is a clear error, not a stack trace', () => {
  expect(() => chooseDriver('node')).toThrow(
    expect.objectContaining({ code: 'driver_unavailable', message: expect.stringContaining('lacks it') }),
  );
});

test('both drivers return plain numbers and strings for the kernel', () => {
  const db = openDb(':memory:');
  db.exec('CREATE TABLE t (i INTEGER, r REAL, s TEXT, n TEXT)');
  db.prepare('INSERT INTO t VALUES (?, ?, ?, ?)').run(42, 1.5, 'x', null);
  expect({ ...db.prepare('SELECT * FROM t').get() }).toEqual({ i: 42, r: 1.5, s: 'x', n: null });
  expect(db.prepare('UPDATE t SET i = 1').run().changes).toBe(1);
  db.close();
});

test('a store opened for writing is in WAL mode and syncs every commit (FULL), so an answered write survives a power cut', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopx-sync-'));
  try {
    const db = openDb(join(dir, 'loopx.db'));
    const pragma = (name: string) => Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0];
    expect([pragma('journal_mode'), pragma('synchronous')]).toEqual(['wal', 2]); // 2 = FULL (NORMAL is 1)
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

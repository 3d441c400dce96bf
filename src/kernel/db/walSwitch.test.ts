import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { chooseDriver, openDb } from './openDb';
import { openBetterSqlite } from './betterSqliteDriver';
import { openNodeSqlite } from './nodeSqliteDriver';

/**
 * Another process takes the write lock on a new file (rollback mode, as a store is before its first open switches it
 * to WAL) and holds it for the milliseconds given, then commits. Resolves once it holds the lock.
 */
const HOLDER = `
let Database;
try { Database = require('node:sqlite').DatabaseSync; } catch { Database = require('better-sqlite3'); }
const db = new Database(process.argv[1]);
db.exec('BEGIN IMMEDIATE');
db.exec('CREATE TABLE IF NOT EXISTS t (x)');
process.stdout.write('held\\n');
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(process.argv[2]));
db.exec('COMMIT');
db.close();
`;

let dir: string;
let holder: ChildProcess | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopx-wal-'));
});
afterEach(() => {
  holder?.kill();
  rmSync(dir, { recursive: true, force: true });
});

function holdWriteLock(path: string, holdMs: number): Promise<void> {
  holder = spawn(process.execPath, ['-e', HOLDER, path, String(holdMs)], { cwd: resolve(__dirname, '..', '..', '..') });
  const child = holder;
  return new Promise((done, fail) => {
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('held') && done());
    child.on('exit', (code) => fail(new Error(`the lock holder exited ${code}: ${err}`)));
  });
}

test('a new store opened while another process writes to it waits for the lock at the switch to WAL, instead of failing busy at once', async () => {
  const path = join(dir, 'new.db');
  await holdWriteLock(path, 400);
  // SQLite itself answers the switch with SQLITE_BUSY at once here, whatever its busy timeout: why openDb tries again.
  const raw = chooseDriver() === 'node:sqlite' ? openNodeSqlite(path, 30_000) : openBetterSqlite(path, 30_000);
  expect(() => raw.exec('PRAGMA journal_mode = WAL')).toThrow(/locked/);
  raw.close();
  const db = openDb(path, undefined, { busyTimeoutMs: 30_000 });
  expect(Object.values(db.prepare('PRAGMA journal_mode').get() ?? {})[0]).toBe('wal');
  // The holder's commit is there: the open waited for it rather than going around it.
  expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 't'").get()).toEqual({ name: 't' });
  db.close();
});

test('a lock held past the busy timeout still fails busy at the switch to WAL, once the timeout has passed', async () => {
  const path = join(dir, 'held.db');
  await holdWriteLock(path, 10_000);
  const started = Date.now();
  expect(() => openDb(path, undefined, { busyTimeoutMs: 300 })).toThrow(/locked|busy/i);
  expect(Date.now() - started).toBeGreaterThanOrEqual(300);
});

import { afterEach, beforeEach, expect, test } from 'vitest';
import { makeStore, type TestStore } from '../../test/support/testKit';
import { Kernel } from './kernel';
import { openDb } from './db/openDb';
import type { SqliteDb } from './db/sqliteDb';
import { createGoal } from './goals/goals';
import { EXIT, StoreBusyError } from './errors';
import { busyError } from './storeFile';

let s: TestStore;
let other: SqliteDb;
beforeEach(() => {
  s = makeStore();
  // A second connection (another process, in life) takes the write lock and keeps it.
  other = openDb(Kernel.storePath(s.root), s.kernel.db.driver);
  other.exec('BEGIN IMMEDIATE');
  // The kernel waits 10 s for a lock; here it gives up at once.
  s.kernel.db.exec('PRAGMA busy_timeout = 20');
});
afterEach(() => {
  if (other.isOpen) other.close();
  s.dispose();
});

const goals = () => Number(s.kernel.db.prepare('SELECT count(*) AS n FROM goals').get()?.n);

test(`a write that meets a locked store is a typed busy refusal (exit ${EXIT.refused}) on this runtime's driver, and writes nothing`, () => {
  const before = goals();
  let thrown: unknown;
  try {
    createGoal(s.kernel, { title: 'waits for the lock' });
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(StoreBusyError);
  // The words say how long this connection waited (its busy timeout, set to 20 ms above).
  expect(thrown).toMatchObject({ code: 'busy', exitCode: EXIT.refused, message: 'the store stayed locked by another writer for 20 ms' });
  expect(goals()).toBe(before);
  other.exec('ROLLBACK');
  expect(createGoal(s.kernel, { title: 'after the lock' }).id).toBe('G1');
});

test('reads go on while another connection writes (WAL): busy is only about the write lock', () => {
  expect(s.kernel.read((db) => Number(db.prepare('SELECT count(*) AS n FROM events').get()?.n))).toBeGreaterThan(0);
});

test('the raw driver error is recognised by its code, whichever driver raised it', () => {
  let raw: unknown;
  try {
    s.kernel.db.exec('BEGIN IMMEDIATE');
  } catch (error) {
    raw = error;
  }
  expect(raw).toBeDefined();
  expect(busyError(raw)).toBeInstanceOf(StoreBusyError);
  // The words say how long it waited: a local store's timeout, or the longer one a team replica is opened with.
  expect(busyError(raw)?.message).toBe('the store stayed locked by another writer for 10 s');
  expect(busyError(raw, 70_000)?.message).toBe('the store stayed locked by another writer for 70 s');
  expect(busyError(new Error('no such table: goals'))).toBeNull();
  expect(busyError(new StoreBusyError(10))).toBeNull(); // already typed: left as it is
});

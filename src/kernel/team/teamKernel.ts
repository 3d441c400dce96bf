import { letDatabaseDecide } from '../decisions';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { BUSY_TIMEOUT_MS, openDb } from '../db/openDb';
import type { DriverName, SqliteDb } from '../db/sqliteDb';
import { initializeLogInTx } from '../initializeLog';
import type { Actor } from '../events/eventTypes';
import { APPLICATION_ID, storeError } from '../storeFile';
import { type Clock, systemClock } from '../time';
import type { ConnectionSettings } from './connectionSettings';
import { SyncPg, TIMEOUT_DEFAULTS } from './syncPg';
import { TeamEngine } from './teamEngine';
import { teamError } from './teamErrors';
import { timeTeam } from './teamTiming';

/**
 * Builds a kernel on a database: `Kernel.fromDb`, passed in (and its kernel's type a parameter) so that kernel.ts can
 * open team stores without a cycle, type imports included.
 */
export type KernelFromDb<K> = (
  root: string,
  db: SqliteDb,
  options: { actor?: Actor; clock: Clock; engine: (replica: SqliteDb) => TeamEngine },
) => K;

export interface TeamKernelOptions {
  /** The replica: a SQLite file of this machine (`:memory:` in tests), rebuilt from the log whenever it is new. */
  replicaPath: string;
  connection: ConnectionSettings;
  actor?: Actor;
  clock?: Clock;
  driver?: DriverName;
  /** An open client to use instead of a new one from `connection` (the conformance tests reuse one per database). */
  pg?: SyncPg;
  /**
   * Start the write path's worker now, so it connects while the replica opens (default). A process that only reads
   * says false: its read catches up on its own thread (TeamEngine.catchUpFirst) and never needs the worker.
   */
  warm?: boolean;
}

/**
 * How long a process waits for the replica's write lock. A write holds it while it waits on PostgreSQL (one lock
 * order: replica, then log; teamEngine.ts): the log's head, the commit, and, when the connection broke, whether the
 * commit landed, each up to the batch limit. A sibling on the same machine must outlast that, or it fails `busy`
 * where the server was only slow (test/team/faults.test.ts, "a write held up on the server").
 */
export function replicaBusyTimeoutMs(settings: ConnectionSettings): number {
  return BUSY_TIMEOUT_MS + 3 * (settings.timeoutMs ?? TIMEOUT_DEFAULTS.timeoutMs);
}

/** Marks the replica as a loopx store (once: a write, which would otherwise wait for the lock at every open). */
function markAsLoopxStore(raw: SqliteDb): void {
  if (Number(raw.prepare('PRAGMA application_id').get()?.application_id) !== APPLICATION_ID)
    raw.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
}

/**
 * Opens the kernel over a team store: the same kernel, its writes committed to the PostgreSQL log, its reads from the
 * replica after catching up. An empty log gets its first event (`store.initialized`) here, once, whoever comes first;
 * a replica that has history opens without asking the server anything.
 */
export function openTeamKernelWith<K extends { close(): void }>(
  fromDb: KernelFromDb<K>,
  root: string,
  options: TeamKernelOptions,
): { kernel: K; engine: TeamEngine } {
  // The worker starts and connects while the replica opens and the command runs up to its first query.
  const pg = options.pg ?? new SyncPg(options.connection);
  if (options.warm !== false) pg.warm();
  if (options.replicaPath !== ':memory:') mkdirSync(dirname(options.replicaPath), { recursive: true });
  // The replica is a loopx store, marked as one: its backup (the caught-up replica, TeamEngine.backupTo) is then a file
  // `restore` and backup pruning recognise, like a single-machine store's (the conformance run's backup test found
  // unmarked copies kept past the newest ten).
  const busyTimeoutMs = replicaBusyTimeoutMs(pg.settings);
  const db = timeTeam('replicaOpenMs', () => {
    try {
      return openDb(options.replicaPath, options.driver, { check: markAsLoopxStore, busyTimeoutMs });
    } catch (error) {
      throw storeError(error, options.replicaPath, busyTimeoutMs);
    }
  });
  // A person's decision there stands on the team database's roles, not on one machine's key (decisions.ts).
  letDatabaseDecide(db);
  // No fsync at the replica's commits (WAL with synchronous=NORMAL: a commit is atomic and the file never corrupt, the
  // last commits may be lost to a power cut). The log in PostgreSQL, durable on its COMMIT before the replica's, is
  // what a write is confirmed on; a replica that lost its newest commits ends at an event the log has, and the next
  // catch-up applies the rest again (as after a crash between the two COMMITs). What fsync guards is kept elsewhere.
  if (options.replicaPath !== ':memory:') db.exec('PRAGMA synchronous = NORMAL');
  let engine: TeamEngine | undefined;
  const kernel = fromDb(root, db, {
    actor: options.actor,
    clock: options.clock ?? systemClock,
    engine: (replica) => (engine = new TeamEngine(replica, pg, options.replicaPath === ':memory:' ? '' : dirname(options.replicaPath))),
  });
  const team = engine as unknown as TeamEngine;
  // A replica with history needs nothing of the server to open: the log is not empty, and the first write checks the
  // server's durability. So a window opened while the server is down can still show the last state it saw (and a
  // one-shot CLI read pays no extra round trip). A new replica must reach the log now.
  if (db.prepare('SELECT 1 FROM events LIMIT 1').get()) return { kernel, engine: team };
  try {
    team.write({ name: 'kernel', kind: 'kernel' }, options.clock ?? systemClock, initializeLogInTx);
  } catch (error) {
    kernel.close();
    throw teamError(error, team.where);
  }
  return { kernel, engine: team };
}

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { openDb } from '../db/openDb';
import type { DriverName } from '../db/sqliteDb';
import { SCHEMA_VERSION } from '../db/migrate';
import type { Actor } from '../events/eventTypes';
import { Kernel } from '../kernel';
import { APPLICATION_ID } from '../storeFile';
import { type Clock, systemClock } from '../time';
import { type ConnectionSettings, SyncPg } from './syncPg';
import { TeamEngine } from './teamEngine';
import { TeamNotDurableError, teamError } from './teamErrors';
import { TEAM_SCHEMA_SQL } from './teamSchema';

/** How a process reaches the team store: one home, teamPointer.ts (re-exported for existing callers). */
export { teamConnection } from './teamPointer';

/** Creates (or brings up to date) the team store's schema and roles, as the database owner. */
export function installTeamSchema(settings: ConnectionSettings): void {
  const pg = new SyncPg(settings);
  try {
    pg.query(TEAM_SCHEMA_SQL);
  } catch (error) {
    throw teamError(error);
  } finally {
    pg.close();
  }
}

export interface TeamKernelOptions {
  /** The replica: a SQLite file of this machine (`:memory:` in tests), rebuilt from the log whenever it is new. */
  replicaPath: string;
  connection: ConnectionSettings;
  actor?: Actor;
  clock?: Clock;
  driver?: DriverName;
  /** An open client to use instead of a new one from `connection` (the conformance tests reuse one per database). */
  pg?: SyncPg;
}

/**
 * Opens the kernel over a team store: the same kernel, its writes committed to the PostgreSQL log, its reads from the
 * replica after catching up. An empty log gets its first event (`store.initialized`) here, once, whoever comes first.
 */
export function openTeamKernel(root: string, options: TeamKernelOptions): { kernel: Kernel; engine: TeamEngine } {
  if (options.replicaPath !== ':memory:') mkdirSync(dirname(options.replicaPath), { recursive: true });
  // The replica is a loopx store, marked as one: its backup (the caught-up replica, TeamEngine.backupTo) is then a file
  // `restore` and backup pruning recognise, like a single-machine store's (the conformance run's backup test found
  // unmarked copies kept past the newest ten).
  const db = openDb(options.replicaPath, options.driver, { check: (raw) => raw.exec(`PRAGMA application_id = ${APPLICATION_ID}`) });
  let engine: TeamEngine | undefined;
  const kernel = Kernel.fromDb(root, db, {
    actor: options.actor,
    clock: options.clock ?? systemClock,
    engine: (replica) =>
      (engine = new TeamEngine(
        replica,
        options.pg ?? new SyncPg(options.connection),
        options.replicaPath === ':memory:' ? '' : dirname(options.replicaPath),
      )),
  });
  const team = engine as unknown as TeamEngine;
  try {
    // A server that may forget a confirmed commit would let a claim be taken twice after a crash: refused up front.
    const durable = team.pg.query("SELECT current_setting('synchronous_commit') AS setting")[0]?.setting;
    if (durable === 'off') throw new TeamNotDurableError();
    team.write({ name: 'kernel', kind: 'kernel' }, options.clock ?? systemClock, (uow) => {
      if (uow.db.prepare('SELECT 1 FROM events LIMIT 1').get()) return;
      uow.emit({ kind: 'store.initialized', goalId: null, todoId: null, data: { schema: SCHEMA_VERSION } });
    });
  } catch (error) {
    kernel.close();
    throw teamError(error, team.where);
  }
  return { kernel, engine: team };
}

import type { DriverName, SqliteDb } from './sqliteDb';
import { betterSqliteFound, openBetterSqlite } from './betterSqliteDriver';
import { loadNodeSqlite, openNodeSqlite } from './nodeSqliteDriver';
import { DriverUnavailableError } from '../errors';
import { countedIfAsked } from './sqlCount';
import { sleepSync } from '../time';

export const BUSY_TIMEOUT_MS = 10_000;

/** SQLite's primary result codes, as better-sqlite3 names them and node:sqlite numbers them. */
const SQLITE_CODES: Record<number, string> = {
  3: 'SQLITE_PERM',
  5: 'SQLITE_BUSY',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  26: 'SQLITE_NOTADB',
};

/** The SQLite result code of a driver error (either driver), such as SQLITE_NOTADB. */
export function sqliteCode(error: { code?: unknown; errcode?: unknown }): string | undefined {
  if (typeof error.errcode === 'number') return SQLITE_CODES[error.errcode & 0xff];
  return typeof error.code === 'string' ? error.code : undefined;
}

/** True for a driver error that says another connection holds the lock (SQLITE_BUSY and its extended codes). */
export function isSqliteBusy(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = sqliteCode(error as { code?: unknown; errcode?: unknown }) ?? '';
  return /^SQLITE_BUSY/.test(code) || /^database is locked\b/.test((error as Error).message ?? '');
}

/**
 * True in the bundles VS Code loads (the extension, its language server; esbuild's define): they ship no native
 * driver, so better-sqlite3 is not even in them, and a runtime without node:sqlite is refused in words.
 */
declare const __LOOPX_NODE_SQLITE_ONLY__: boolean | undefined;

/** Why there is no driver when node:sqlite is missing, in words (the CLI's message; VS Code says its own). */
export function nodeSqliteMissing(node = process.versions.node): string {
  return `loopx needs Node 22.13 or newer: it keeps its store with Node's built-in SQLite (node:sqlite), which Node ${node} lacks`;
}

/**
 * Picks the driver at run time: `node:sqlite` where the runtime has it, `better-sqlite3` otherwise (Node 20 in a
 * checkout, where it is a dev dependency). `LOOPX_SQLITE_DRIVER=node|better` forces one (tests run the suite against each).
 */
export function chooseDriver(preferred = process.env.LOOPX_SQLITE_DRIVER): DriverName {
  if (typeof __LOOPX_NODE_SQLITE_ONLY__ === 'boolean' && __LOOPX_NODE_SQLITE_ONLY__) {
    if (!loadNodeSqlite()) throw new DriverUnavailableError(nodeSqliteMissing());
    return 'node:sqlite';
  }
  if (preferred === 'better' || preferred === 'better-sqlite3') return 'better-sqlite3';
  if (preferred === 'node' || preferred === 'node:sqlite') {
    if (!loadNodeSqlite()) throw new DriverUnavailableError(`node:sqlite was requested but Node ${process.versions.node} lacks it`);
    return 'node:sqlite';
  }
  return loadNodeSqlite() ? 'node:sqlite' : 'better-sqlite3';
}

/**
 * Refuses at once when this runtime can open no store (Node 20 without better-sqlite3 beside loopx, as the npm
 * package is): said before anything else, so that a folder without a store does not send a person to `loopx init`,
 * which would then refuse for the runtime, and an MCP server does not start only to fail every call.
 */
export function requireStoreDriver(preferred = process.env.LOOPX_SQLITE_DRIVER): void {
  if (chooseDriver(preferred) === 'node:sqlite' || betterSqliteFound()) return;
  throw new DriverUnavailableError(
    loadNodeSqlite() ? 'better-sqlite3 was asked for (LOOPX_SQLITE_DRIVER) but is not installed beside loopx' : nodeSqliteMissing(),
  );
}

export interface OpenOptions {
  /** Open without write access (status, log verify, doctor): works on a store another user owns or a read-only mount. */
  readOnly?: boolean;
  /** Runs on the bare connection before any pragma writes to the file (the kernel checks the file is a loopx store). */
  check?: (db: SqliteDb) => void;
  /** How long a statement waits for another connection's write lock (BUSY_TIMEOUT_MS unless a team replica's). */
  busyTimeoutMs?: number;
}

/** Opens a database file (or `:memory:`) with the pragmas every loopx connection uses. */
export function openDb(path: string, driver: DriverName = chooseDriver(), options: OpenOptions = {}): SqliteDb {
  let db: SqliteDb;
  const readOnly = options.readOnly === true;
  const busyMs = options.busyTimeoutMs ?? BUSY_TIMEOUT_MS;
  try {
    // The define written out where it is used, so that esbuild drops better-sqlite3 from the editor's bundles.
    db =
      driver === 'node:sqlite' || (typeof __LOOPX_NODE_SQLITE_ONLY__ === 'boolean' && __LOOPX_NODE_SQLITE_ONLY__)
        ? openNodeSqlite(path, busyMs, readOnly)
        : openBetterSqlite(path, busyMs, readOnly);
    db = countedIfAsked(db);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Node 20 without better-sqlite3 beside loopx (the npm package ships none): the runtime is too old, say so.
    if (driver === 'better-sqlite3' && /Cannot find module/.test(message)) throw new DriverUnavailableError(nodeSqliteMissing());
    if (/better.sqlite3|NODE_MODULE_VERSION|node:sqlite|Cannot find module|\.node/i.test(message)) {
      throw new DriverUnavailableError(`no SQLite driver could be loaded: ${driver}: ${message.split('\n')[0]}`);
    }
    throw error;
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${busyMs}`);
    options.check?.(db);
    if (path !== ':memory:' && !readOnly) switchToWal(db, busyMs);
    db.exec('PRAGMA foreign_keys = ON');
    // Every commit reaches the disk before loopx answers: with NORMAL a commit waits in the WAL for a checkpoint,
    // which never comes while another connection (VS Code's) is open, so a power cut could undo an acknowledged
    // write. One fsync of the WAL per write; on this machine it does not show in `npm run bench`.
    if (!readOnly) db.exec('PRAGMA synchronous = FULL');
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * `PRAGMA journal_mode = WAL` on a file still in rollback mode (a new store) answers SQLITE_BUSY at once, without the
 * busy timeout, while another connection writes to it: SQLite reads page 1, then upgrades to a write, and does not
 * wait there (a wait could deadlock). Two processes opening a new file together meet it (a machine's first two
 * commands on a team replica; found by test/team/faults.test.ts on a loaded machine), and the second then failed
 * `busy` "after 70 s" within a millisecond. So the switch is tried again until the busy timeout has passed.
 */
function switchToWal(db: SqliteDb, busyMs: number): void {
  const deadline = Date.now() + busyMs;
  for (let pauseMs = 5; ; pauseMs = Math.min(pauseMs * 2, 100)) {
    try {
      db.exec('PRAGMA journal_mode = WAL');
      return;
    } catch (error) {
      if (!isSqliteBusy(error) || Date.now() >= deadline) throw error;
      sleepSync(pauseMs);
    }
  }
}

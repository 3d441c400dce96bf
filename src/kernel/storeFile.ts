import { accessSync, constants, copyFileSync, existsSync, mkdtempSync, rmSync, statSync, statfsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { SqliteDb } from './db/sqliteDb';
import { EXIT, LoopxError, StoreBusyError } from './errors';
import { BUSY_TIMEOUT_MS, isSqliteBusy, sqliteCode } from './db/openDb';
import { teamPointerPath } from './team/teamPointer';
import { nodeOs } from './nodeOs';

/**
 * Every loopx store carries this in SQLite's `PRAGMA application_id` ("LOOP" in ASCII): `loopx init` writes it, and
 * opening checks it before anything touches the file. A store from before the mark is recognised by its schema and
 * marked once; anything else (an empty file, another program's SQLite database) is refused and left untouched.
 */
export const APPLICATION_ID = 0x4c4f4f50;

/** Tables only a loopx store has all of: how a store from before the application_id mark is recognised. */
const LOOPX_TABLES = ['events', 'goals', 'todos', 'gates', 'quota_spends', 'handoffs', 'agents'];

/** Exit code 6: the store or its disk cannot be used as it is (not a loopx bug; a person has to look). */
export class StoreEnvironmentError extends LoopxError {
  constructor(code: StoreProblem, message: string, hint: string) {
    super(code, message, EXIT.storeUnusable, hint);
  }
}

export type StoreProblem = 'not_a_store' | 'store_damaged' | 'store_read_only' | 'disk_full' | 'store_unopenable';

const RESTORE_HINT =
  'run `loopx doctor` to see what is wrong; restore a backup from .loopx/backups/ (move the damaged file away, `loopx init`, then `loopx restore FILE`)';

export function notAStore(path: string, what: string): StoreEnvironmentError {
  return new StoreEnvironmentError(
    'not_a_store',
    `${path} is not a loopx store: ${what}; it was left untouched`,
    'point --root at the workspace whose .loopx/ holds the store, or move this file away and run `loopx init` (a backup can then be restored with `loopx restore FILE`)',
  );
}

/** Refuses what cannot be a store before SQLite opens it: a directory, a special file, an empty file. */
export function checkStorePath(path: string): void {
  const stat = statSync(path);
  if (stat.isDirectory()) throw notAStore(path, 'it is a directory');
  if (!stat.isFile()) throw notAStore(path, 'it is not a regular file');
  if (stat.size === 0) throw notAStore(path, 'it is an empty file (0 bytes), so its history is gone');
}

export type StoreKind = 'loopx' | 'unmarked-loopx' | 'foreign';

/** What the file at the other end of `db` is, read without writing anything. */
export function identifyStore(db: SqliteDb): StoreKind {
  const appId = Number(db.prepare('PRAGMA application_id').get()?.application_id ?? 0);
  if (appId === APPLICATION_ID) return 'loopx';
  if (appId !== 0) return 'foreign';
  const tables = new Set(
    db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`)
      .all()
      .map((r) => String(r.name)),
  );
  const version = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
  return version >= 1 && LOOPX_TABLES.every((t) => tables.has(t)) ? 'unmarked-loopx' : 'foreign';
}

/** Checks the file is a loopx store (marking an unmarked one once, unless read-only); refuses anything else. */
export function requireLoopxStore(db: SqliteDb, path: string, readOnly: boolean): void {
  const kind = identifyStore(db);
  if (kind === 'foreign') {
    const tables = Number(db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'`).get()?.n ?? 0);
    throw notAStore(
      path,
      tables === 0 ? 'it is an empty SQLite database' : `it is another program's SQLite database (${tables} tables, no loopx mark)`,
    );
  }
  if (kind === 'unmarked-loopx' && !readOnly) db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
}

/**
 * A read-only connection to a WAL store needs the `-shm` file; when it is missing and the folder is not writable
 * (another user's store, a read-only mount) SQLite cannot open it. The read then works on a private copy.
 */
export function needsPrivateCopy(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown };
  if (typeof e.errcode === 'number') return e.errcode === 1544 || (e.errcode & 0xff) === 14;
  return e.code === 'SQLITE_READONLY_DIRECTORY' || (typeof e.code === 'string' && e.code.startsWith('SQLITE_CANTOPEN'));
}

/** Copies the store (and its WAL, when readable) into a private folder; `dispose` removes it. */
export function privateCopy(path: string): { path: string; dispose(): void } {
  // node:os is loaded here, not at start-up: only a read-only mount needs a private copy.
  const dir = mkdtempSync(join(nodeOs().tmpdir(), 'loopx-read-'));
  const copy = join(dir, basename(path));
  try {
    copyFileSync(path, copy);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { path: copy, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Less than 64 KB free where the store lives. */
function diskFull(path: string): boolean {
  try {
    const fs = statfsSync(path === 'the store' ? '.' : dirname(path));
    return fs.bavail * fs.bsize < 64 * 1024;
  } catch {
    return false;
  }
}

/** Whether the store file and its folder (where SQLite keeps -wal and -shm) may be written. */
function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    accessSync(dirname(path), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Names environment trouble (disk full, a read-only file or mount, another user's store, a damaged file) instead of
 * calling it a loopx bug. Returns null for anything else.
 */
export function environmentError(error: unknown, path = 'the store'): StoreEnvironmentError | null {
  if (error instanceof LoopxError || typeof error !== 'object' || error === null) return null;
  const code = sqliteCode(error as { code?: unknown; errcode?: unknown }) ?? '';
  const detail = (error as Error).message?.split('\n')[0] ?? '';
  // A full disk often shows as an I/O error (the -shm or -wal file cannot grow) rather than SQLITE_FULL.
  if (/^SQLITE_FULL/.test(code) || code === 'ENOSPC' || (/^SQLITE_IOERR/.test(code) && diskFull(path))) {
    return new StoreEnvironmentError(
      'disk_full',
      `the disk holding ${path} is full (${detail}); nothing was written`,
      'free space on that disk, then run the command again',
    );
  }
  const readOnly = () =>
    new StoreEnvironmentError(
      'store_read_only',
      `cannot write ${path}: it is read-only, on a read-only mount, or owned by another user (${detail})`,
      'fix its permissions or run as its owner; status, log verify and doctor still work read-only',
    );
  if (/^SQLITE_(READONLY|PERM)/.test(code) || code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return readOnly();
  if (/^SQLITE_(CORRUPT|NOTADB)/.test(code))
    return new StoreEnvironmentError('store_damaged', `${path} is damaged or not a database (${detail})`, RESTORE_HINT);
  if (/^SQLITE_CANTOPEN/.test(code) && path !== 'the store' && !writable(path)) return readOnly();
  if (/^SQLITE_CANTOPEN/.test(code) || code === 'EISDIR') {
    return new StoreEnvironmentError(
      'store_unopenable',
      `cannot open ${path} (${detail})`,
      'check that it is a file you may read and that its folder is accessible',
    );
  }
  if (/^SQLITE_IOERR/.test(code) || code === 'EIO') {
    return new StoreEnvironmentError('store_damaged', `reading or writing ${path} failed (${detail})`, RESTORE_HINT);
  }
  return null;
}

/**
 * The write lock stayed taken for the whole busy timeout (SQLITE_BUSY and its extended codes, either driver); `waitedMs`
 * is the connection's timeout (a team replica's is longer: teamKernel.ts).
 */
export function busyError(error: unknown, waitedMs = BUSY_TIMEOUT_MS): StoreBusyError | null {
  if (error instanceof LoopxError) return null;
  return isSqliteBusy(error) ? new StoreBusyError(waitedMs / 1000) : null;
}

/**
 * What the kernel throws for SQLite trouble: environment trouble named as such, a busy store as `busy`, anything
 * else unchanged. Adapters call it too on errors from their own file work around the kernel.
 */
export function storeError(error: unknown, path = 'the store', busyTimeoutMs = BUSY_TIMEOUT_MS): unknown {
  return environmentError(error, path) ?? busyError(error, busyTimeoutMs) ?? error;
}

/**
 * `loopx team push` moved a workspace's store aside between the look for it and its open: SQLite then made an empty
 * file in its place, which is not a store (`not_a_store`). True when that is what happened (the team pointer is there
 * now); the empty file (0 bytes: nothing was written to it) is removed, so the caller opens the team store, as a call
 * a moment later would. Exported for its test.
 */
export function movedWhileOpening(root: string, path: string, error: unknown): boolean {
  if ((error as { code?: string }).code !== 'not_a_store' || !existsSync(teamPointerPath(root))) return false;
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      if (statSync(file).size === 0) rmSync(file, { force: true });
    } catch {
      /* not there */
    }
  }
  return true;
}

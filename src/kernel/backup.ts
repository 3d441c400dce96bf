import { requireHumanChannel } from './authority';
import { BROKEN_MARKER } from './logHealth';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Kernel } from './kernel';
import { openDb, sqliteCode } from './db/openDb';
import { integrityCheck, type SqliteDb } from './db/sqliteDb';
import { verifyChain } from './events/verify';
import { checkReplay } from './replay';
import { migrate, schemaVersion } from './db/migrate';
import { APPLICATION_ID, StoreEnvironmentError, identifyStore } from './storeFile';
import { type LogAnchor, logHead } from './events/anchor';
import { InvalidInputError, LoopxError, NotFoundError, RefusedError } from './errors';
import { iso } from './time';

export const BACKUP_DIR = 'backups';
const DEFAULT_KEEP = 10;

export interface Backup {
  path: string;
  bytes: number;
  events: number;
  head: LogAnchor | null;
  /** Older backups removed from the default folder to keep the newest `keep`. */
  removed: string[];
}

/**
 * A consistent copy of the store (SQLite's VACUUM INTO reads one snapshot, so writers in other processes go on),
 * verified before it is reported: integrity, and the hash chain. By default it lands in .loopx/backups/ named after
 * its time and newest event, and only the newest ten are kept there; `to` names any new file instead.
 */
export function backupStore(kernel: Kernel, options: { to?: string; keep?: number; label?: string } = {}): Backup {
  const inDefault = options.to === undefined;
  const folder = join(kernel.storeDir, BACKUP_DIR);
  const head = kernel.read((db) => logHead(db));
  const stamp = iso(kernel.clock()).replace(/[-:.]/g, '');
  const path = inDefault
    ? join(folder, `loopx-${stamp}-e${head?.seq ?? 0}${options.label ? `-${options.label}` : ''}.db`)
    : resolve(options.to as string);
  if (existsSync(path)) throw new InvalidInputError(`${path} already exists; a backup never overwrites a file`);
  if (!inDefault && !existsSync(dirname(path))) throw new InvalidInputError(`the folder ${dirname(path)} does not exist`);
  mkdirSync(dirname(path), { recursive: true });
  kernel.engine.backupTo(path);
  try {
    const { events } = withStoreFile(path, (db) => verifyStoreFile(db, path));
    const removed = inDefault ? prune(folder, options.keep ?? DEFAULT_KEEP, path) : [];
    return { path, bytes: statSync(path).size, events, head, removed };
  } catch (error) {
    rmSync(path, { force: true });
    throw error;
  }
}

function withStoreFile<T>(file: string, fn: (db: SqliteDb) => T): T {
  const db = openDb(file);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** What a backup must show before it is reported or put back: integrity, a loopx schema (the expected one), an intact chain. */
function verifyStoreFile(db: SqliteDb, file: string, expectVersion?: number, replay = false): { events: number; head: LogAnchor | null } {
  const integrity = integrityCheck(db);
  if (integrity.join() !== 'ok') throw new RefusedError('backup_broken', `${file} is damaged: ${integrity.slice(0, 3).join('; ')}`);
  const hasEvents = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'`).get();
  if (!hasEvents) throw new InvalidInputError(`${file} is not a loopx store`);
  const version = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
  if (expectVersion !== undefined && version !== expectVersion) {
    throw new RefusedError(
      'schema_mismatch',
      `${file} has schema ${version}, this store ${expectVersion}`,
      'restore it with the loopx version that wrote it',
    );
  }
  const chain = verifyChain(db);
  if (!chain.ok)
    throw new RefusedError('backup_broken', `${file}: its event log is broken at event ${chain.firstBadSeq}: ${chain.problem}`);
  if (replay) {
    // A chain can be intact while the state tables were edited behind it (an approved gate with no event): replay.
    const replayed = checkReplay(db);
    if (!replayed.ok) {
      const what = replayed.differences
        .slice(0, 3)
        .map((d) => `${d.table}: ${d.detail}`)
        .join('; ');
      throw new RefusedError(
        'backup_broken',
        `${file}: its state tables differ from what its log says (${what})`,
        'restore another backup; this one was changed outside loopx',
      );
    }
  }
  return { events: chain.events, head: logHead(db) };
}

/**
 * Keeps the newest `keep` backups, `made` (the one just written) always among them. Age is the time recorded inside
 * each backup (its newest event), not its name: names sort wrongly after a clock ran ahead. Only files loopx wrote
 * (its name pattern, and a loopx store inside) are ever removed; anything unreadable is left alone.
 */
function prune(folder: string, keep: number, made: string): string[] {
  const others = readdirSync(folder)
    .filter((f) => /^loopx-\d{8}T\d{9}Z-e\d+(-[a-z-]+)?\.db$/.test(f) && join(folder, f) !== made)
    .map((f) => ({ f, at: backupTime(join(folder, f)) }))
    .filter((b): b is { f: string; at: string } => b.at !== null)
    // Newest first; backups of the same newest event by the time in their name.
    .sort((a, b) => (a.at !== b.at ? (a.at < b.at ? 1 : -1) : a.f < b.f ? 1 : -1));
  const removed = others.slice(Math.max(0, keep - 1)).map((b) => b.f);
  for (const f of removed) for (const suffix of ['', '-wal', '-shm']) rmSync(join(folder, `${f}${suffix}`), { force: true });
  return removed;
}

/** The newest event's time inside a loopx backup; null for anything that is not one (never pruned). */
function backupTime(path: string): string | null {
  try {
    const db = openDb(path, undefined, { readOnly: true });
    try {
      if (Number(db.prepare('PRAGMA application_id').get()?.application_id) !== APPLICATION_ID) return null;
      const at = db.prepare('SELECT at FROM events ORDER BY seq DESC LIMIT 1').get()?.at;
      return typeof at === 'string' ? at : null;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

export const RESTORE_MARKER = 'last-restore.json';
export interface RestoreMarker {
  at: string;
  from: string;
  saved: string;
  head: LogAnchor | null;
}

/** The last restore's marker, if any (malformed ones read as none). */
export function readRestoreMarker(storeDir: string): RestoreMarker | undefined {
  try {
    const marker = JSON.parse(readFileSync(join(storeDir, RESTORE_MARKER), 'utf8')) as RestoreMarker;
    return typeof marker.at === 'string' && typeof marker.from === 'string' ? marker : undefined;
  } catch {
    return undefined;
  }
}

export interface Restore {
  from: string;
  events: number;
  head: LogAnchor | null;
  /** The store as it was, saved first: restoring this file undoes the restore. */
  saved: Backup;
}

/**
 * Puts a backup's content back into the store, in place and in one transaction, so processes that have the store
 * open (the extension, an agent's CLI) see an ordinary change instead of a swapped file. The backup is verified first
 * (integrity, schema, hash chain, and its state tables replayed from its log), then, under the write lock taken once
 * and held through the swap, the current content is saved to .loopx/backups/ and replaced: every write acknowledged
 * before the restore is in the saved copy, every later one lands on the restored content. Ids never repeat.
 */
export function restoreStore(kernel: Kernel, file: string): Restore {
  requireHumanChannel(kernel.actor, 'to restore a backup');
  const from = resolve(file);
  if (!existsSync(from)) throw new NotFoundError('backup', from);
  // A FIFO or a device would block the copy forever; only a regular file can be a backup.
  if (!statSync(from).isFile()) throw new InvalidInputError(`${from} is not a regular file`, 'name a backup file written by loopx backup');
  const folder = join(kernel.storeDir, BACKUP_DIR);
  mkdirSync(folder, { recursive: true });
  removeAbandonedScratch(folder);
  // Checked and attached as a scratch copy, never the file itself: opening a database switches it to WAL. The copy
  // stays in `.loopx/` from its check to the swap: in the temp folder (which Codex's sandbox lets its agent write) a
  // copy checked clean could be replaced before it became the store (docs/authority.md).
  const scratchDir = mkdtempSync(join(folder, `${SCRATCH_PREFIX}${process.pid}-`));
  const scratch = join(scratchDir, basename(from));
  const saving = join(folder, `${SAVING_PREFIX}${process.pid}-${Date.now()}.db`);
  try {
    copyFileSync(from, scratch);
    const checked = checkBackupFile(from, () =>
      withStoreFile(scratch, (db) => {
        if (identifyStore(db) === 'foreign')
          throw new InvalidInputError(`${from} is not a loopx store`, 'name a backup file written by loopx backup');
        if (schemaVersion(db) < kernel.schemaVersion) migrate(db); // an older loopx's backup: the copy is brought up to date
        return verifyStoreFile(db, from, kernel.schemaVersion, true);
      }),
    );
    const saved = swapUnderLock(kernel, scratch, saving, from);
    // Who replaced the log and with what: a window's log witness reads it to tell a restore from tampering.
    const marker: RestoreMarker = { at: iso(kernel.clock()), from, saved: saved.path, head: checked.head };
    writeFileSync(join(kernel.storeDir, RESTORE_MARKER), `${JSON.stringify(marker, null, 2)}\n`);
    // A human put a verified log back: whatever was found broken before is decided.
    rmSync(join(kernel.storeDir, BROKEN_MARKER), { force: true });
    return { from, events: checked.events, head: checked.head, saved };
  } finally {
    rmSync(scratchDir, { recursive: true, force: true });
    rmSync(saving, { force: true });
  }
}

/**
 * Runs the checks of a backup's scratch copy and says what is wrong with the file given when SQLite cannot read it:
 * a text file or a garbage header is not a loopx store (exit 2); a truncated file, a corrupt page or a missing table
 * is a broken backup (exit 3). Never `store_damaged` about the live store, which nothing here has touched.
 */
function checkBackupFile<T>(from: string, check: () => T): T {
  try {
    return check();
  } catch (thrown) {
    // Our own words about the file stand; so does trouble with the machine (a full disk, a read-only folder).
    const aboutTheFile =
      thrown instanceof StoreEnvironmentError && ['store_damaged', 'not_a_store', 'store_unopenable'].includes(thrown.code);
    if (thrown instanceof LoopxError && !aboutTheFile) throw thrown;
    const code = sqliteCode(thrown as { code?: unknown; errcode?: unknown }) ?? '';
    const detail = (thrown as Error).message?.split('\n')[0] ?? String(thrown);
    const untouched = 'the live store was not touched; name another backup (loopx backup writes them to .loopx/backups/)';
    if (/^SQLITE_NOTADB/.test(code) || /file is not a database/i.test(detail))
      throw new InvalidInputError(`${from} is not a loopx store: it is not a SQLite database (${detail})`, untouched);
    throw new RefusedError('backup_broken', `${from} is damaged or incomplete, so it cannot be restored (${detail})`, untouched);
  }
}

const SCRATCH_PREFIX = '.restore-';
const SAVING_PREFIX = '.saving-';

/** The engine's swap under its write lock, then the saved content renamed after its time and newest event, and verified. */
function swapUnderLock(kernel: Kernel, scratch: string, saving: string, from: string): Backup {
  const head: LogAnchor | null = kernel.engine.restoreFrom(scratch, saving, { schemaVersion: kernel.schemaVersion, named: from });
  const stamp = iso(kernel.clock()).replace(/[-:.]/g, '');
  const path = join(dirname(saving), `loopx-${stamp}-e${head?.seq ?? 0}-before-restore.db`);
  renameSync(saving, path);
  const { events } = withStoreFile(path, (saved) => verifyStoreFile(saved, path));
  return { path, bytes: statSync(path).size, events, head, removed: [] };
}

/** Scratch copies and half-saved files of restores whose process died (killed mid-restore). */
function removeAbandonedScratch(folder: string): void {
  const dead = (pid: number) => {
    try {
      process.kill(pid, 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
  };
  for (const name of readdirSync(folder)) {
    const prefix = [SCRATCH_PREFIX, SAVING_PREFIX].find((p) => name.startsWith(p));
    const pid = prefix ? Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1]) : NaN;
    if (Number.isInteger(pid) && pid !== process.pid && dead(pid)) rmSync(join(folder, name), { recursive: true, force: true });
  }
}

import { requireHumanChannel } from './authority';
import { BROKEN_MARKER } from './logHealth';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { Kernel } from './kernel';
import { openDb } from './db/openDb';
import { immediate, integrityCheck, type SqliteDb } from './db/sqliteDb';
import { verifyChain } from './events/log';
import { type LogAnchor, logHead } from './events/anchor';
import { InvalidInputError, NotFoundError, RefusedError } from './errors';

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
  const stamp = new Date(kernel.clock()).toISOString().replace(/[-:.]/g, '');
  const path = inDefault ? join(folder, `loopx-${stamp}-e${head?.seq ?? 0}${options.label ? `-${options.label}` : ''}.db`) : resolve(options.to as string);
  if (existsSync(path)) throw new InvalidInputError(`${path} already exists; a backup never overwrites a file`);
  if (!inDefault && !existsSync(dirname(path))) throw new InvalidInputError(`the folder ${dirname(path)} does not exist`);
  mkdirSync(dirname(path), { recursive: true });
  kernel.db.prepare('VACUUM INTO ?').run(path);
  try {
    const { events } = withStoreFile(path, (db) => verifyStoreFile(db, path));
    const removed = inDefault ? prune(folder, options.keep ?? DEFAULT_KEEP) : [];
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
function verifyStoreFile(db: SqliteDb, file: string, expectVersion?: number): { events: number; head: LogAnchor | null } {
  const integrity = integrityCheck(db);
  if (integrity.join() !== 'ok') throw new RefusedError('backup_broken', `${file} is damaged: ${integrity.slice(0, 3).join('; ')}`);
  const hasEvents = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'`).get();
  if (!hasEvents) throw new InvalidInputError(`${file} is not a loopx store`);
  const version = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
  if (expectVersion !== undefined && version !== expectVersion) {
    throw new RefusedError('schema_mismatch', `${file} has schema ${version}, this store ${expectVersion}`, 'restore it with the loopx version that wrote it');
  }
  const chain = verifyChain(db);
  if (!chain.ok) throw new RefusedError('backup_broken', `${file}: its event log is broken at event ${chain.firstBadSeq}: ${chain.problem}`);
  return { events: chain.events, head: logHead(db) };
}

function prune(folder: string, keep: number): string[] {
  const backups = readdirSync(folder).filter((f) => /^loopx-\d{8}T\d{9}Z-e\d+(-[a-z-]+)?\.db$/.test(f)).sort();
  const removed = backups.slice(0, Math.max(0, backups.length - keep));
  for (const f of removed) rmSync(join(folder, f), { force: true });
  return removed;
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
 * and the current content is saved as a backup of its own, so a restore can be undone the same way.
 */
export function restoreStore(kernel: Kernel, file: string): Restore {
  requireHumanChannel(kernel.actor, 'to restore a backup');
  const from = resolve(file);
  if (!existsSync(from)) throw new NotFoundError('backup', from);
  const version = kernel.schemaVersion;
  // Checked and attached as a scratch copy, never the file itself: opening a database switches it to WAL.
  const scratchDir = mkdtempSync(join(tmpdir(), 'loopx-restore-'));
  const scratch = join(scratchDir, basename(from));
  try {
    copyFileSync(from, scratch);
    const checked = withStoreFile(scratch, (db) => verifyStoreFile(db, from, version));
    const saved = backupStore(kernel, { label: 'before-restore', keep: Number.MAX_SAFE_INTEGER });
    const db = kernel.db;
    db.prepare('ATTACH DATABASE ? AS restored').run(scratch);
    // Foreign keys are checked once, over the whole result, before COMMIT (deferred counting misjudges a table
    // emptied and refilled under its children); the pragma only changes outside a transaction.
    db.exec('PRAGMA foreign_keys = OFF');
    try {
      immediate(db, () => {
        const tables = db.prepare(`SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all().map((r) => String(r.name));
        for (const table of tables) {
          db.exec(`DELETE FROM main."${table}"`);
          db.exec(`INSERT INTO main."${table}" SELECT * FROM restored."${table}"`);
        }
        const dangling = db.prepare('PRAGMA main.foreign_key_check').all();
        if (dangling.length) throw new RefusedError('backup_broken', `${from} has ${dangling.length} dangling references`);
      });
    } finally {
      db.exec('PRAGMA foreign_keys = ON');
      db.exec('DETACH DATABASE restored');
    }
    // Who replaced the log and with what: a window's log witness reads it to tell a restore from tampering.
    const marker: RestoreMarker = { at: new Date(kernel.clock()).toISOString(), from, saved: saved.path, head: checked.head };
    writeFileSync(join(kernel.storeDir, RESTORE_MARKER), `${JSON.stringify(marker, null, 2)}\n`);
    // A human put a verified log back: whatever was found broken before is decided.
    rmSync(join(kernel.storeDir, BROKEN_MARKER), { force: true });
    return { from, events: checked.events, head: checked.head, saved };
  } finally {
    rmSync(scratchDir, { recursive: true, force: true });
  }
}

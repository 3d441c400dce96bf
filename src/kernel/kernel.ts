import { constants, copyFileSync, existsSync, linkSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DriverName, SqliteDb } from './db/sqliteDb';
import { BUSY_TIMEOUT_MS, openDb } from './db/openDb';
import { SCHEMA_VERSION, migrate, schemaTooNew, schemaVersion } from './db/migrate';
import { TailBrokenError } from './events/log';
import { brokenLog, logBrokenError, markBroken } from './logHealth';
import { KERNEL, hasHumanChannel } from './authority';
import type { Actor, StoredEvent } from './events/eventTypes';
import type { ClosableEngine, UnitOfWork } from './unitOfWork';
import { SqliteEngine } from './db/sqliteEngine';
import { type Clock, iso, systemClock } from './time';
import { NoStoreError, NotAllowedError, SchemaTooOldError } from './errors';
import {
  APPLICATION_ID,
  checkStorePath,
  movedWhileOpening,
  needsPrivateCopy,
  privateCopy,
  requireLoopxStore,
  storeError,
} from './storeFile';
import { readTeamPointer, resolveTeamConnection, teamPointerPath, teamReplicaPath } from './team/teamPointer';
import { openTeamKernelWith } from './team/teamKernel';
import { initializeLogInTx } from './initializeLog';

export const STORE_DIR = '.loopx';
export const DB_FILE = 'loopx.db';

export interface KernelOptions {
  clock?: Clock;
  actor?: Actor;
  driver?: DriverName;
  /** Open without write access (reads only): a store another user owns or on a read-only mount. */
  readOnly?: boolean;
  /** Where writes run, when not SQLite's own engine: team mode's PostgreSQL log over this file as its replica. */
  engine?: (db: SqliteDb) => ClosableEngine;
  /**
   * Team mode: start the write path's worker as the store opens (default: unless `readOnly`). A one-shot write that
   * commits after its command (`catchUpFirst({ thenWrite })`) says false: it needs the worker only to run again.
   */
  warm?: boolean;
}

/** What a write sees: one instant, one actor, and `emit` to append-and-apply an event (the unit of work). */
export type Tx = UnitOfWork;

export type CommitListener = (events: readonly StoredEvent[]) => void;

/**
 * The state kernel over one store. Every durable change goes through `write`, which runs one
 * BEGIN IMMEDIATE transaction; events emitted inside it are applied and chained in that same transaction.
 */
export class Kernel {
  private constructor(
    readonly root: string,
    readonly db: SqliteDb,
    readonly clock: Clock,
    readonly actor: Actor,
    private readonly shared: { closed: boolean; listeners: Set<CommitListener> },
    /**
     * Where the units of work run: SQLite's engine, or team mode's (src/kernel/team/teamEngine.ts); the seam a second
     * engine plugs into (unitOfWork.ts).
     */
    readonly engine: ClosableEngine = new SqliteEngine(db, join(root, STORE_DIR)),
  ) {}

  static storePath(root: string): string {
    return join(root, STORE_DIR, DB_FILE);
  }

  /** Whether `root` holds a store: this machine's own file, or a pointer to a team store (team mode). */
  static hasStore(root: string): boolean {
    return existsSync(Kernel.storePath(root)) || existsSync(teamPointerPath(root));
  }

  /**
   * Team mode (`.loopx/team.json` present): the team kernel, its writes committed to the PostgreSQL log, its reads
   * from this machine's replica (`.loopx/team-replica.db`) after a catch-up. Null when the workspace has no pointer.
   */
  private static openTeam(root: string, options: KernelOptions): Kernel | null {
    const pointer = readTeamPointer(root);
    if (!pointer) return null;
    return openTeamKernelWith((r, db, o) => Kernel.fromDb(r, db, o), root, {
      replicaPath: teamReplicaPath(root),
      connection: resolveTeamConnection(pointer.database).settings,
      actor: options.actor,
      clock: options.clock,
      driver: options.driver,
      // A read-only call never writes: it needs no worker for a write's batches (Kernel.catchUpFirst).
      warm: options.warm ?? options.readOnly !== true,
    }).kernel;
  }

  /** Whether `root` is in team mode (`.loopx/team.json`) with this machine's replica built (a first call builds it). */
  static hasTeamReplica(root: string): boolean {
    return existsSync(teamPointerPath(root)) && existsSync(teamReplicaPath(root));
  }

  /**
   * For a process that reads once and exits (the CLI's read verbs): a team store's replica is caught up now, on this
   * thread, and the next read asks the log nothing (TeamEngine.catchUpFirst). Nothing to do for a local store.
   */
  async catchUpFirst(options: { thenWrite?: boolean } = {}): Promise<void> {
    await this.engine.catchUpFirst?.(options);
  }

  /**
   * After a one-shot write's command (`catchUpFirst({ thenWrite: true })`): its writes committed to the team log, then
   * the replica. `again`: nothing was written (the log moved on), run the command once more (it writes the ordinary
   * way). Always `done` for a local store, whose writes committed as they ran.
   */
  async settle(): Promise<'done' | 'again'> {
    return (await this.engine.settle?.()) ?? 'done';
  }

  /**
   * Opens an existing store (migrating an older schema; refusing a newer one). Never creates or converts a file: a
   * path that is not a loopx store (empty, a directory, another program's database) is refused and left untouched.
   */
  static open(root: string, options: KernelOptions = {}): Kernel {
    const team = options.engine ? null : Kernel.openTeam(root, options);
    if (team) return team;
    const path = Kernel.storePath(root);
    if (!existsSync(path)) {
      // `loopx team push` may have written the pointer and moved this file aside since the pointer was looked for.
      const moved = options.engine ? null : Kernel.openTeam(root, options);
      if (moved) return moved;
      throw new NoStoreError(root);
    }
    if (options.readOnly) {
      const db = Kernel.openStoreFile(path, options);
      if (schemaVersion(db) >= SCHEMA_VERSION) return Kernel.fromDb(root, db, options);
      // An older schema: a reader migrates it like any command would, where it may write; else it reads it as it is.
      db.close();
      try {
        return Kernel.open(root, { ...options, readOnly: false });
      } catch (error) {
        if ((error as { code?: string }).code !== 'store_read_only') throw error;
      }
    }
    try {
      return Kernel.fromDb(root, Kernel.openStoreFile(path, options), options);
    } catch (error) {
      const team = !options.engine && movedWhileOpening(root, path, error) ? Kernel.openTeam(root, options) : null;
      if (!team) throw error;
      return team;
    }
  }

  /**
   * Opens an existing store for reading only (the language server): the connection refuses every write
   * (`query_only`), and a schema older or newer than this code is refused instead of migrated.
   */
  static openReadOnly(root: string, options: KernelOptions = {}): Kernel {
    // A team store is read through the replica, caught up on every read; an unreachable server is refused in words.
    const team = Kernel.openTeam(root, { ...options, actor: { name: 'reader', kind: 'kernel' } });
    if (team) return team;
    const path = Kernel.storePath(root);
    if (!existsSync(path)) throw new NoStoreError(root);
    // Read-only the way `status` and `doctor` read (a loopx store only, a private copy where SQLite cannot share it).
    const db = Kernel.openStoreFile(path, { ...options, readOnly: true });
    try {
      db.exec('PRAGMA query_only = ON');
      const version = schemaVersion(db);
      if (version > SCHEMA_VERSION) throw schemaTooNew(db, version);
      if (version < SCHEMA_VERSION) throw new SchemaTooOldError(version, SCHEMA_VERSION);
    } catch (error) {
      db.close();
      throw error;
    }
    return new Kernel(root, db, options.clock ?? systemClock, { name: 'reader', kind: 'kernel' }, { closed: false, listeners: new Set() });
  }

  /** Creates `.loopx/` and its database (marked as a loopx store), or reuses an existing store untouched. */
  static init(root: string, options: KernelOptions = {}): { kernel: Kernel; created: boolean } {
    // A workspace pointed at a team store has its store there: init opens it, and never makes a local one beside it.
    const team = Kernel.openTeam(root, options);
    if (team) return { kernel: team, created: false };
    mkdirSync(join(root, STORE_DIR), { recursive: true });
    const path = Kernel.storePath(root);
    const created = !existsSync(path) && Kernel.createStoreFile(root, path, options);
    const kernel = Kernel.fromDb(root, Kernel.openStoreFile(path, options), options);
    // A store an older loopx created without its first event gets it now (never a second one).
    return { kernel, created: kernel.initializeLog() || created };
  }

  /**
   * Builds a complete store (schema, mark, first event) in a file of its own, then links it into place: the store
   * path never shows a half-made store. Several `loopx init` at once (agents do that) each build one; the first
   * link wins and the others open the winner's. Without this, an init opening the file another had only just
   * created read an empty file and called the store's history gone. True when this call's store is the one in place.
   */
  private static createStoreFile(root: string, path: string, options: KernelOptions): boolean {
    const temp = `${path}.init-${process.pid}-${Date.now().toString(36)}`;
    try {
      const db = openDb(temp, options.driver, { check: (raw) => raw.exec(`PRAGMA application_id = ${APPLICATION_ID}`) });
      const kernel = Kernel.fromDb(root, db, options);
      kernel.initializeLog();
      // The last connection closing checkpoints the WAL into the file: what is linked is complete by itself.
      kernel.close();
      try {
        linkSync(temp, path);
        return true;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') return false;
        if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'].includes(code ?? '')) throw error;
      }
      // A file system without hard links: an exclusive copy (still never over a store that is there).
      try {
        copyFileSync(temp, path, constants.COPYFILE_EXCL);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw error;
      }
    } catch (error) {
      throw storeError(error, path);
    } finally {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${temp}${suffix}`, { force: true });
    }
  }

  private static openStoreFile(path: string, options: KernelOptions): SqliteDb {
    const readOnly = options.readOnly === true;
    const open = (file: string) => openDb(file, options.driver, { readOnly, check: (raw) => requireLoopxStore(raw, path, readOnly) });
    try {
      checkStorePath(path);
      try {
        return open(path);
      } catch (error) {
        if (!readOnly || !needsPrivateCopy(error)) throw error;
        // Another user's store or a read-only mount: read a private copy (taken now, as a snapshot would be).
        const copy = privateCopy(path);
        try {
          const db = open(copy.path);
          return {
            ...db,
            driver: db.driver,
            prepare: db.prepare,
            exec: db.exec,
            get isOpen() {
              return db.isOpen;
            },
            close: () => {
              db.close();
              copy.dispose();
            },
          };
        } catch (inner) {
          copy.dispose();
          throw inner;
        }
      }
    } catch (error) {
      throw storeError(error, path);
    }
  }

  static fromDb(root: string, db: SqliteDb, options: KernelOptions = {}): Kernel {
    try {
      // A read-only connection cannot migrate; an older schema is read as it is only if it is current.
      if (options.readOnly && schemaVersion(db) !== SCHEMA_VERSION) {
        if (schemaVersion(db) > SCHEMA_VERSION) throw schemaTooNew(db, schemaVersion(db));
      } else {
        migrate(db);
      }
    } catch (error) {
      db.close();
      throw storeError(error);
    }
    const actor = options.actor ?? { name: 'kernel', kind: 'kernel' };
    const shared = { closed: false, listeners: new Set<CommitListener>() };
    return new Kernel(root, db, options.clock ?? systemClock, actor, shared, options.engine?.(db));
  }

  /** The same store seen by another actor (the extension acts for the human; tests switch agents). */
  as(actor: Actor): Kernel {
    return new Kernel(this.root, this.db, this.clock, actor, this.shared, this.engine);
  }

  /** The SQLite file this kernel reads: the store, or in team mode this machine's replica of the team log. */
  get storeFile(): string {
    return this.engine instanceof SqliteEngine ? Kernel.storePath(this.root) : teamReplicaPath(this.root);
  }

  get storeDir(): string {
    return join(this.root, STORE_DIR);
  }

  get schemaVersion(): number {
    return schemaVersion(this.db);
  }

  /**
   * Runs one write transaction; listeners hear about the committed events afterwards. Under it (db/sqliteEngine.ts,
   * db/sqliteDb.ts): BEGIN IMMEDIATE, so the write lock is held before anything is read; the instant (`tx.at`) read
   * under the lock; each `tx.emit` chained into the log and its kind's reducer applied (events/log.ts); COMMIT, or
   * ROLLBACK of everything when `fn` throws. The team engine holds the log head on the server the same way.
   */
  write<T>(fn: (tx: Tx) => T): T {
    // A store known to be broken takes no agent's write until a human decides (loopx log accept, or a restore).
    if (!hasHumanChannel(this.actor)) {
      const broken = brokenLog(this.storeDir);
      if (broken) throw logBrokenError(broken);
    }
    const { value, events } = this.named(() => this.engine.write(this.actor, this.clock, fn));
    if (events.length > 0) for (const listener of this.shared.listeners) listener(events);
    return value;
  }

  /** Runs reads against one consistent snapshot. */
  read<T>(fn: (db: SqliteDb, nowMs: number) => T): T {
    return this.named(() => this.engine.read(this.clock, fn));
  }

  /**
   * Environment trouble (disk full, read-only, damaged file) is named with the store's path, and a store locked
   * past the busy timeout is `busy`: neither is left raw.
   */
  private named<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      if (error instanceof TailBrokenError) {
        markBroken(this.storeDir, error.found, iso(this.clock()));
        throw logBrokenError(error.found);
      }
      throw storeError(error, Kernel.storePath(this.root), busyTimeoutOf(this.db));
    }
  }

  onCommit(listener: CommitListener): () => void {
    this.shared.listeners.add(listener);
    return () => this.shared.listeners.delete(listener);
  }

  /** Requires a human or agent identity for an operation done on someone's behalf. */
  requireActor(): Actor {
    if (this.actor.kind === 'kernel') throw new NotAllowedError('this operation needs an agent or human identity');
    return this.actor;
  }

  close(): void {
    if (this.shared.closed) return;
    this.shared.closed = true;
    this.engine.close?.();
    this.db.close();
  }

  /**
   * For a process that exits right after (the CLI's own: processIo.ts): ends what the engine holds (a team store's
   * connection) but leaves the SQLite connection to the exit. Closing it would make this call the store's last
   * connection on the way out, which checkpoints the WAL into the database and deletes it: four of a durable write's
   * five fsyncs, and the next call makes the WAL again. Every commit is already on disk (synchronous = FULL); SQLite
   * checkpoints the WAL as it grows, but only a close ends it (below).
   */
  leaveForExit(): void {
    if (this.shared.closed) return;
    // SQLite starts a WAL over from its beginning only for a connection that began reading with every frame already
    // in the database, which a process living for one call never is: left alone, the WAL would grow by every call's
    // pages (52 MB after 1,000 `todo add`). Past SQLite's own checkpoint size, this call closes as it used to: the
    // checkpoint, and the WAL deleted when no other process holds the store.
    if (walBytes(this.root) > WAL_KEEP_BYTES) return this.close();
    this.shared.closed = true;
    this.engine.close?.();
  }

  private initializeLog(): boolean {
    // Straight to the engine: the first event needs no broken-log check (there is no log yet) and no listener hears it.
    return this.named(() => this.engine.write(KERNEL, this.clock, initializeLogInTx).value);
  }
}

/** SQLite's automatic checkpoint size (1,000 pages of 4 KB): the most WAL a CLI call leaves behind it. */
export const WAL_KEEP_BYTES = 1000 * 4096;

/** The bytes in the store's WAL (the local store's or a team replica's, whichever this workspace has). */
function walBytes(root: string): number {
  let bytes = 0;
  for (const file of [Kernel.storePath(root), teamReplicaPath(root)]) {
    try {
      bytes = Math.max(bytes, statSync(`${file}-wal`).size);
    } catch {
      /* no WAL there */
    }
  }
  return bytes;
}

/** The connection's busy timeout, for the words of a `busy` error (a team replica waits longer than a local store). */
function busyTimeoutOf(db: SqliteDb): number {
  try {
    return Number(db.prepare('PRAGMA busy_timeout').get()?.timeout ?? BUSY_TIMEOUT_MS);
  } catch {
    return BUSY_TIMEOUT_MS;
  }
}

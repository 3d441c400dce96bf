import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DriverName, SqliteDb } from './db/sqliteDb';
import { immediate, snapshot } from './db/sqliteDb';
import { openDb } from './db/openDb';
import { SCHEMA_VERSION, migrate, schemaVersion } from './db/migrate';
import { EventAppender } from './events/log';
import type { Actor, EventDraft, StoredEvent } from './events/eventTypes';
import { type Clock, iso, systemClock } from './time';
import { NoStoreError, NotAllowedError, SchemaTooNewError, SchemaTooOldError } from './errors';

export const STORE_DIR = '.loopx';
export const DB_FILE = 'loopx.db';

export interface KernelOptions {
  clock?: Clock;
  actor?: Actor;
  driver?: DriverName;
}

/** What a write sees: one instant, one actor, and `emit` to append-and-apply an event. */
export interface Tx {
  readonly db: SqliteDb;
  readonly nowMs: number;
  readonly at: string;
  readonly actor: Actor;
  /** Appends and applies an event; `as` attributes it to another actor than the transaction's. */
  emit(draft: EventDraft, as?: Actor): StoredEvent;
}

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
  ) {}

  static storePath(root: string): string {
    return join(root, STORE_DIR, DB_FILE);
  }

  /** Opens an existing store (migrating an older schema; refusing a newer one). */
  static open(root: string, options: KernelOptions = {}): Kernel {
    const path = Kernel.storePath(root);
    if (!existsSync(path)) throw new NoStoreError(root);
    return Kernel.fromDb(root, openDb(path, options.driver), options);
  }

  /**
   * Opens an existing store for reading only (the language server): the connection refuses every write
   * (`query_only`), and a schema older or newer than this code is refused instead of migrated.
   */
  static openReadOnly(root: string, options: KernelOptions = {}): Kernel {
    const path = Kernel.storePath(root);
    if (!existsSync(path)) throw new NoStoreError(root);
    const db = openDb(path, options.driver);
    try {
      db.exec('PRAGMA query_only = ON');
      const version = schemaVersion(db);
      if (version > SCHEMA_VERSION) throw new SchemaTooNewError(version, SCHEMA_VERSION);
      if (version < SCHEMA_VERSION) throw new SchemaTooOldError(version, SCHEMA_VERSION);
    } catch (error) {
      db.close();
      throw error;
    }
    return new Kernel(root, db, options.clock ?? systemClock, { name: 'reader', kind: 'kernel' }, { closed: false, listeners: new Set() });
  }

  /** Creates `.loopx/` and its database, or reuses the existing one untouched. */
  static init(root: string, options: KernelOptions = {}): { kernel: Kernel; created: boolean } {
    mkdirSync(join(root, STORE_DIR), { recursive: true });
    const path = Kernel.storePath(root);
    const kernel = Kernel.fromDb(root, openDb(path, options.driver), options);
    const created = kernel.initializeLog();
    return { kernel, created };
  }

  static fromDb(root: string, db: SqliteDb, options: KernelOptions = {}): Kernel {
    try {
      migrate(db);
    } catch (error) {
      db.close();
      throw error;
    }
    const actor = options.actor ?? { name: 'kernel', kind: 'kernel' };
    return new Kernel(root, db, options.clock ?? systemClock, actor, { closed: false, listeners: new Set() });
  }

  /** The same store seen by another actor (the extension acts for the human; tests switch agents). */
  as(actor: Actor): Kernel {
    return new Kernel(this.root, this.db, this.clock, actor, this.shared);
  }

  get storeDir(): string {
    return join(this.root, STORE_DIR);
  }

  get schemaVersion(): number {
    return schemaVersion(this.db);
  }

  /** Runs one write transaction; listeners hear about the committed events afterwards. */
  write<T>(fn: (tx: Tx) => T): T {
    const emitted: StoredEvent[] = [];
    const result = immediate(this.db, () => {
      const nowMs = this.clock();
      const at = iso(nowMs);
      const actor = this.actor;
      const appender = new EventAppender(this.db, actor, at);
      const value = fn({
        db: this.db,
        nowMs,
        at,
        actor,
        emit: (draft, as) => {
          const event = appender.append(draft, as);
          emitted.push(event);
          return event;
        },
      });
      appender.finish();
      return value;
    });
    if (emitted.length > 0) for (const listener of this.shared.listeners) listener(emitted);
    return result;
  }

  /** Runs reads against one consistent snapshot. */
  read<T>(fn: (db: SqliteDb, nowMs: number) => T): T {
    return snapshot(this.db, () => fn(this.db, this.clock()));
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
    this.db.close();
  }

  private initializeLog(): boolean {
    return immediate(this.db, () => {
      if (this.db.prepare('SELECT 1 FROM events LIMIT 1').get()) return false;
      new EventAppender(this.db, { name: 'kernel', kind: 'kernel' }, iso(this.clock())).append({
        kind: 'store.initialized',
        goalId: null,
        todoId: null,
        data: { schema: SCHEMA_VERSION },
      });
      return true;
    });
  }
}

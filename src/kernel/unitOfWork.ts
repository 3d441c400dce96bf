import type { FSWatcher } from 'node:fs';
import type { SqliteDb } from './db/sqliteDb';
import type { Actor, EventDraft, StoredEvent } from './events/eventTypes';

/**
 * What an operation sees while it writes: one transaction on the store engine, one instant, one actor, and `emit`,
 * which appends an event to the hash-chained log and applies its reducer inside that same transaction, so state and
 * log cannot disagree. Every write of the kernel is a function of a unit of work (`claimInTx(uow, …)`); only the
 * engine behind it knows how the transaction is begun, locked and committed. `Db` is the engine's statement API:
 * SQLite's synchronous one today (docs in README, Architecture: "Store engines").
 */
export interface UnitOfWork<Db = SqliteDb> {
  readonly db: Db;
  readonly nowMs: number;
  readonly at: string;
  readonly actor: Actor;
  /** Appends and applies an event; `as` attributes it to another actor than the transaction's. */
  emit(draft: EventDraft, as?: Actor): StoredEvent;
}

/** A write's outcome: its value, and the events it committed (for the kernel's commit listeners). */
export interface Committed<T> {
  value: T;
  events: StoredEvent[];
}

/**
 * Where units of work run. A write holds the log head from its first read to its commit (SQLite: BEGIN IMMEDIATE),
 * so the compare-and-swap of a claim and the chaining of its event see one state. A read sees one snapshot.
 */
export interface StoreEngine<Db = SqliteDb> {
  readonly db: Db;
  write<T>(actor: Actor, clock: () => number, fn: (uow: UnitOfWork<Db>) => T): Committed<T>;
  read<T>(clock: () => number, fn: (db: Db, nowMs: number) => T): T;
  /** A consistent copy of the whole store at `path`, taken while writers go on (SQLite: VACUUM INTO). */
  backupTo(path: string): void;
  /**
   * Replaces the store's content with a verified copy's in one write (the lock held through it), after saving the
   * current content to `saveTo`; ids stay above both. Returns the saved content's newest event (SQLite: ATTACH).
   * `named` is how a refusal names the backup.
   */
  restoreFrom(copy: string, saveTo: string, options: { schemaVersion: number; named: string }): { seq: number; hash: string } | null;
  /** How another process's commits reach a long-lived reader (the store watcher). */
  changeSignal(options?: { watch?: WatchFn }): ChangeSignal;
}

/**
 * An engine the kernel closes with itself. Team mode's holds a connection, catches a one-shot call up first, and
 * commits a one-shot write after its command (`settle`); SQLite's needs none of them.
 */
export type ClosableEngine = StoreEngine & {
  close?(): void;
  catchUpFirst?(options?: { thenWrite?: boolean }): Promise<void>;
  settle?(): Promise<'done' | 'again'>;
};

/**
 * What tells a long-lived reader (VS Code, `loopx run`, the language server) that another process committed, without
 * polling: `wake` fires when the store may have changed (early or spurious wakes are fine), `version` moves when
 * another connection committed, and `head` (the newest event) decides whether it is news. SQLite: a watch on the
 * store's folder and `PRAGMA data_version`; PostgreSQL would LISTEN for a NOTIFY sent by each commit.
 */
export interface ChangeSignal {
  readonly isOpen: boolean;
  version(): number;
  head(): { seq: number; hash: string };
  /**
   * Times the engine lost the server it listens to (a team store; absent elsewhere). Readers look again when it moves
   * though the head did not: their next read asks the server, and a window says so if it is gone.
   */
  outages?(): number;
  /** `settled`: the change is visible already (a team replica caught up before waking), so look now, not shortly. */
  watch(wake: (settled?: boolean) => void): Pick<FSWatcher, 'close' | 'on'>;
}

/** How a change signal watches (a test passes its own). */
export type WatchFn = (dir: string, listener: (event: string, file: string | null) => void) => Pick<FSWatcher, 'close' | 'on'>;

/**
 * The same seam for an engine whose client is asynchronous (PostgreSQL, issue 25): the transaction and every
 * statement are awaited, so the operations written over it are `async` and `emit` resolves once the event is
 * chained. Nothing implements it yet; it is here so the shape of the seam is decided, not guessed, when one does.
 */
export interface AsyncStoreEngine<Db> {
  readonly db: Db;
  write<T>(actor: Actor, clock: () => number, fn: (uow: AsyncUnitOfWork<Db>) => Promise<T>): Promise<Committed<T>>;
  read<T>(clock: () => number, fn: (db: Db, nowMs: number) => Promise<T>): Promise<T>;
}

export interface AsyncUnitOfWork<Db> extends Omit<UnitOfWork<Db>, 'emit'> {
  emit(draft: EventDraft, as?: Actor): Promise<StoredEvent>;
}

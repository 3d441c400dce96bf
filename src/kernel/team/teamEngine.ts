import type { SqliteDb } from '../db/sqliteDb';
import { immediate, snapshot } from '../db/sqliteDb';
import { logHead } from '../events/anchor';
import { GENESIS_HASH } from '../events/hashChain';
import type { Actor, StoredEvent } from '../events/eventTypes';
import { EventAppender } from '../events/log';
import { iso, systemClock } from '../time';
import { randomToken } from '../nodeCrypto';
import type { ChangeSignal, Committed, StoreEngine, UnitOfWork, WatchFn } from '../unitOfWork';
import { SqliteEngine } from '../db/sqliteEngine';
import { applyTeamEvents, commitStatements, fetchAfter, lockAndFetchStatements, operationLandedStatements, rowsToEvents } from './teamLog';
import { PgError, type SyncPg } from './syncPg';
import { TeamLive } from './teamLive';
import { LaterCommit, endQuietly, fetchFirst } from './laterCommit';
import { addTeamTiming, timeTeam } from './teamTiming';
import { OperationUnknownError, TeamNotDurableError, TeamRefusedError, teamError, teamWhere } from './teamErrors';

/**
 * The kernel's engine in team mode. PostgreSQL's event log is the source of truth (one hash chain, strict order);
 * this machine's SQLite file is a replica of it (a projection, rebuilt from the log at any time) on which the same
 * synchronous kernel runs. A write:
 *
 *   1. BEGIN IMMEDIATE on the replica (a machine's processes queue here first: one lock order, replica then log, so
 *      two processes of one machine never wait on each other crosswise);
 *   2. PostgreSQL BEGIN, lock the log head, fetch the events after the replica's head, apply them (catch up);
 *   3. run the operation on the replica: its rules read the caught-up state, its events chain onto the log's head;
 *   4. insert those events (the database checks their order and their authority again) and the operation id; COMMIT;
 *   5. COMMIT the replica. If PostgreSQL refused, the replica rolls back; if the replica fails after PostgreSQL
 *      committed, the write stands and the next catch-up repairs the replica.
 *
 * A connection lost during step 4 leaves the outcome unknown: the operation id is looked up on a new connection; if
 * it landed the write stands, if not it runs once more from a fresh catch-up (so a claim taken meanwhile by someone
 * else is refused, not doubled). A read catches up, then reads the replica.
 */
export class TeamEngine implements StoreEngine {
  /** The team store as HOST:PORT/DB, for messages (no credentials). */
  readonly where: string;

  /** Where operation ids come from (client-generated, unique; the log refuses one twice). */
  newOperationId: () => string = randomToken;

  /** The replica as a plain SQLite store: what a backup copies and what the change signal watches. */
  private readonly replica: SqliteEngine;
  /** The NOTIFY listener, while a change signal is watched (teamLive.ts). */
  private live: TeamLive | null = null;
  private readonly wakers = new Set<(settled?: boolean) => void>();
  /** Catch-ups this process applied to the replica (part of the change signal's version). */
  private applied = 0;
  /** Listening connections lost (part of the version too: readers then read, and find out whether the server is there). */
  private outages = 0;
  /** What `catchUpFirst` left for the next read: the replica caught up just now, or why it could not be. */
  private caughtUpFirst: { error: unknown } | 'current' | null = null;
  /** A one-shot write's commit after its command (catchUpFirst's `thenWrite`, laterCommit.ts), or why it cannot be. */
  private later: LaterCommit | { error: unknown } | null = null;

  constructor(
    readonly db: SqliteDb,
    readonly pg: SyncPg,
    /** The replica's folder (its change signal watches it); none for an in-memory replica. */
    private readonly replicaDir = '',
  ) {
    this.replica = new SqliteEngine(db, replicaDir);
    this.where = teamWhere(pg.settings);
  }

  /** A backup of a team store is a SQLite file any loopx can restore: the replica, caught up first. */
  backupTo(path: string): void {
    try {
      this.catchUp();
    } catch (error) {
      throw teamError(error, this.where);
    }
    this.replica.backupTo(path);
  }

  restoreFrom(): { seq: number; hash: string } | null {
    throw new TeamRefusedError(
      'restoring a backup into a team store is not built yet (issue 25); restore it into a single-machine store instead',
    );
  }

  /**
   * Wakes a long-lived reader for any machine's commit: SQLite's signal on the replica's folder for this machine's other
   * processes, and PostgreSQL's NOTIFY for everyone's (teamLive.ts: the replica is caught up, then the reader woken).
   * The listener runs while someone watches; while it listens and has heard of nothing the replica lacks, reads skip
   * their catch-up query. `version` moves for another connection's commit to the replica (SQLite's data version) and
   * for every catch-up this process applied, so the store watcher's cheap first filter lets both through.
   */
  changeSignal(options?: { watch?: WatchFn }): ChangeSignal {
    const local = this.replica.changeSignal(options);
    const db = this.db;
    return {
      get isOpen() {
        return db.isOpen;
      },
      version: () => local.version() + this.applied + this.outages,
      head: () => local.head(),
      outages: () => this.outages,
      watch: (wake) => {
        const files = this.replicaDir ? local.watch(() => wake()) : null;
        const unsubscribe = this.subscribe(wake);
        return {
          close: () => {
            unsubscribe();
            files?.close();
          },
          on(event: string, listener: (...args: unknown[]) => void) {
            files?.on(event as 'error', listener);
            return this;
          },
        } as ReturnType<ChangeSignal['watch']>;
      },
    };
  }

  /** Whether the NOTIFY listener is connected (a watcher started it and the server answers). */
  get listening(): boolean {
    return this.live?.isListening ?? false;
  }

  /** Whether a read may trust the replica without asking the log now (listening and caught up with what it heard). */
  get liveCurrent(): boolean {
    return this.live?.current() ?? false;
  }

  /** The NOTIFY listener's counters (connections made, lost, fetches), or null while nobody watches. */
  get liveStats(): TeamLive['stats'] | null {
    return this.live?.stats ?? null;
  }

  private subscribe(wake: (settled?: boolean) => void): () => void {
    this.wakers.add(wake);
    this.live ??= new TeamLive(
      this.pg.settings,
      { headSeq: () => (logHead(this.db) ?? { seq: 0 }).seq, apply: (events) => this.applyFetched(events) },
      (applied) => {
        // Nothing applied: the listener lost its connection (the next read asks the log, and says if it is gone).
        if (applied.length === 0) this.outages++;
        // The replica has the events already: the watcher may look at once (no settling, unlike a file event).
        for (const w of [...this.wakers]) w(true);
      },
    );
    return () => {
      this.wakers.delete(wake);
      if (this.wakers.size === 0) {
        this.live?.close();
        this.live = null;
      }
    };
  }

  write<T>(actor: Actor, clock: () => number, fn: (uow: UnitOfWork) => T): Committed<T> {
    const later = this.later;
    if (later) {
      if ('error' in later) {
        this.later = null;
        throw teamError(later.error, this.where);
      }
      let deferred: Committed<T> | null;
      try {
        deferred = later.write(this.db, actor, clock, fn);
      } catch (error) {
        throw teamError(error, this.where);
      }
      if (deferred) return deferred;
      // A sibling process of this machine wrote since the catch-up: the ordinary way, which holds the log's head first.
      this.later = null;
    }
    return timeTeam('writeMs', () => this.writeTimed(actor, clock, fn));
  }

  /**
   * Commits what the writes after catchUpFirst ran (log, then replica). `again`: nothing was written (the log's head moved since the
   * catch-up, or the connection broke before the commit landed) and the replica is as it was: the caller runs its
   * command once more, the ordinary way.
   */
  async settle(): Promise<'done' | 'again'> {
    const later = this.later;
    this.later = null;
    if (!later || 'error' in later) return 'done';
    try {
      const outcome = await later.settle(this.db, this.newOperationId());
      // Run again, the command's reads ask the log as any read would: the catch-up it began with is behind now.
      if (outcome === 'again') this.caughtUpFirst = null;
      return outcome;
    } catch (error) {
      throw teamError(error, this.where);
    }
  }

  private writeTimed<T>(actor: Actor, clock: () => number, fn: (uow: UnitOfWork) => T): Committed<T> {
    const opId = this.newOperationId();
    try {
      return this.writeOnce(opId, actor, clock, fn);
    } catch (error) {
      if (!(error instanceof RetryWrite)) throw teamError(error, this.where);
    }
    try {
      return this.writeOnce(opId, actor, clock, fn);
    } catch (error) {
      throw teamError(
        error instanceof RetryWrite ? new OperationUnknownError(opId, 'the connection broke twice while committing') : error,
        this.where,
      );
    }
  }

  read<T>(clock: () => number, fn: (db: SqliteDb, nowMs: number) => T): T {
    // Inside a write waiting for its commit: the replica's open transaction, the write's own changes included.
    if (this.later instanceof LaterCommit && this.later.open) return fn(this.db, clock());
    const first = this.caughtUpFirst;
    try {
      if (first !== null && first !== 'current') {
        this.caughtUpFirst = null;
        throw first.error;
      }
      // A listening replica that heard of nothing it lacks is the log's state: no query (teamLive.ts); nor one caught
      // up as a one-shot process's read began (catchUpFirst).
      if (first === null && !this.live?.current()) this.catchUp();
    } catch (error) {
      throw teamError(error, this.where);
    }
    return snapshot(this.db, () => fn(this.db, clock()));
  }

  /**
   * A one-shot read (the CLI's read verbs) catches the replica up before its command runs, on this thread's own
   * asynchronous client, so that its read asks the log nothing and no worker thread starts: the worker's start (20 ms
   * on Node 20, 27 ms on Node 22) was the largest part of what a team read costs more than a local one
   * (docs/team.md#figures). The process's reads are then a snapshot of when it began, as a one-shot read is (its
   * command reads on, it does not wait). A failure is kept for the next read to report, as the worker's would be (the
   * same PgError), not waited out twice.
   *
   * `thenWrite` (a one-shot write verb): the connection is kept, with the server's clock, for the command's writes to
   * commit on after it has run (laterCommit.ts, `settle`); a failure is the first write's to report.
   */
  async catchUpFirst(options: { thenWrite?: boolean } = {}): Promise<void> {
    const after = (logHead(this.db) ?? { seq: 0 }).seq;
    const first = await fetchFirst(this.pg.settings, after, options.thenWrite === true);
    if ('error' in first) {
      this.caughtUpFirst = first;
      if (options.thenWrite) this.later = first;
      return;
    }
    try {
      this.applyFetched(first.fresh);
      this.caughtUpFirst = 'current';
    } catch (error) {
      this.caughtUpFirst = { error };
    }
    if (!first.kept) return;
    const { client, clock } = first.kept;
    // A server that may forget a confirmed commit is refused at the write, before anything is sent (writeOnce).
    const refused =
      this.caughtUpFirst !== 'current' ? this.caughtUpFirst : clock.sync === 'off' ? { error: new TeamNotDurableError() } : null;
    if (refused) {
      this.later = refused;
      endQuietly(client);
      return;
    }
    // The log's head as fetched: a replica found elsewhere at the write has a sibling's write the operation did not see.
    this.later = new LaterCommit(client, this.pg.settings, first.fresh.at(-1)?.seq ?? after, clock);
  }

  /**
   * The replica as it is, without asking the log: what VS Code shows, marked as possibly stale, while the server cannot
   * be reached and the person chose to see the last state. Never used to decide a write (writes always catch up).
   */
  readLastState<T>(clock: () => number, fn: (db: SqliteDb, nowMs: number) => T): T {
    return snapshot(this.db, () => fn(this.db, clock()));
  }

  /** Applies every event committed to the log after the replica's head; returns them. */
  catchUp(): StoredEvent[] {
    const head = logHead(this.db) ?? { seq: 0, hash: GENESIS_HASH };
    return this.applyFetched(fetchAfter(this.pg, head.seq));
  }

  /** Applies events fetched after some earlier head, from the head as it is now (another process may have gone on). */
  private applyFetched(fresh: StoredEvent[]): StoredEvent[] {
    if (fresh.length === 0) return [];
    const applied = immediate(this.db, () => {
      const now = logHead(this.db) ?? { seq: 0, hash: GENESIS_HASH };
      return applyTeamEvents(
        this.db,
        fresh.filter((e) => e.seq > now.seq),
        now,
      );
    });
    if (applied.length > 0) this.applied++;
    return applied;
  }

  /** Ends the connection (the kernel calls it when it closes). */
  close(): void {
    if (this.later instanceof LaterCommit) this.later.abandon(this.db);
    this.later = null;
    this.live?.close();
    this.live = null;
    this.wakers.clear();
    this.pg.close();
  }

  /**
   * Whether an operation committed: its first and last seq, or null. Asked holding the log's head: a COMMIT still in
   * flight on a connection given up on (its reply lost, our limit run out) holds the head until it lands or not, and a
   * plain SELECT would answer "not landed" before it lands; the write would then be retried (or refused as
   * `team_unreachable`, "nothing was written") while it lands after all. Waiting for the head makes the answer final,
   * or the wait times out and the outcome stays unknown (found by test/team/faults.test.ts, "a COMMIT still in
   * flight").
   */
  operationLanded(opId: string): { firstSeq: number; lastSeq: number } | null {
    const [, , rows] = this.pg.batch(operationLandedStatements(opId));
    const row = rows?.[0];
    return row ? { firstSeq: Number(row.first_seq), lastSeq: Number(row.last_seq) } : null;
  }

  private writeOnce<T>(opId: string, actor: Actor, clock: () => number, fn: (uow: UnitOfWork) => T): Committed<T> {
    let events: StoredEvent[] = [];
    let logCommitted = false;
    let committedAt = 0;
    let value!: T;
    try {
      value = immediate(this.db, () => {
        const replicaHead = logHead(this.db) ?? { seq: 0, hash: GENESIS_HASH };
        const [, lockRows, tail, serverNow] = this.pg.batch(lockAndFetchStatements(replicaHead.seq));
        try {
          // A server that may forget a confirmed commit (`synchronous_commit` off): after its crash a claim could be
          // taken twice. Asked in the write's own transaction (no round trip of its own), refused before its COMMIT.
          if (serverNow?.[0]?.sync === 'off') throw new TeamNotDurableError();
          timeTeam('replicaApplyMs', () => applyTeamEvents(this.db, rowsToEvents(tail ?? []), replicaHead, lockRows?.[0]));
          // The instant is read once the log's head is held, from the server's clock unless a clock was injected (tests):
          // one clock for every machine, so events' times follow the log's order whatever the machines' clocks say.
          const serverMs = Number(serverNow?.[0]?.ms);
          const nowMs = clock === systemClock && Number.isFinite(serverMs) ? serverMs : clock();
          const at = iso(nowMs);
          const appender = new EventAppender(this.db, actor, at);
          events = appender.appended;
          const result = timeTeam('operationMs', () => {
            const r = fn({ db: this.db, nowMs, at, actor, emit: appender.emit });
            appender.finish();
            return r;
          });
          this.commitLog(opId, events);
          logCommitted = true;
          committedAt = performance.now();
          return result;
        } catch (error) {
          if (!logCommitted && !(error instanceof PgError && error.connectionLost) && !(error instanceof RetryWrite))
            rollbackQuietly(this.pg);
          throw error;
        }
      });
    } catch (error) {
      // The log has the write; only the replica failed to keep it. The next catch-up applies it.
      if (!logCommitted) throw error;
    }
    addTeamTiming('replicaCommitMs', performance.now() - committedAt);
    return { value, events };
  }

  /** Step 4; on a lost connection, asks the log whether the COMMIT took effect before deciding anything. */
  private commitLog(opId: string, events: StoredEvent[]): void {
    try {
      this.pg.batch(commitStatements(opId, events));
    } catch (error) {
      if (!(error instanceof PgError && error.connectionLost)) throw error;
      let landed: { firstSeq: number } | null;
      try {
        landed = this.operationLanded(opId);
      } catch {
        throw new OperationUnknownError(opId, error.message);
      }
      if (landed) return;
      throw new RetryWrite();
    }
  }
}

/** The commit surely did not land (its id is not in the log): roll the replica back and run the write again. */
class RetryWrite extends Error {}

function rollbackQuietly(pg: SyncPg): void {
  try {
    pg.query('ROLLBACK');
  } catch {
    /* the connection is gone: the server rolled back already */
  }
}

import { randomUUID } from 'node:crypto';
import type { SqliteDb } from '../db/sqliteDb';
import { immediate, snapshot } from '../db/sqliteDb';
import { logHead } from '../events/anchor';
import { GENESIS_HASH } from '../events/hashChain';
import type { Actor, StoredEvent } from '../events/eventTypes';
import { EventAppender } from '../events/log';
import { iso } from '../time';
import type { ChangeSignal, Committed, StoreEngine, UnitOfWork, WatchFn } from '../unitOfWork';
import { SqliteEngine } from '../db/sqliteEngine';
import { applyTeamEvents, commitStatements, fetchAfter, lockAndFetchStatements, rowsToEvents } from './teamLog';
import { PgError, type SyncPg } from './syncPg';
import { OperationUnknownError, TeamRefusedError, teamError } from './teamErrors';

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
  /** Where operation ids come from (client-generated, unique; the log refuses one twice). */
  newOperationId: () => string = randomUUID;

  /** The replica as a plain SQLite store: what a backup copies and what the change signal watches. */
  private readonly replica: SqliteEngine;

  constructor(
    readonly db: SqliteDb,
    readonly pg: SyncPg,
    /** The replica's folder (its change signal watches it); none for an in-memory replica. */
    replicaDir = '',
  ) {
    this.replica = new SqliteEngine(db, replicaDir);
  }

  /** A backup of a team store is a SQLite file any loopx can restore: the replica, caught up first. */
  backupTo(path: string): void {
    try {
      this.catchUp();
    } catch (error) {
      throw teamError(error);
    }
    this.replica.backupTo(path);
  }

  restoreFrom(): { seq: number; hash: string } | null {
    throw new TeamRefusedError(
      'restoring a backup into a team store is not built yet (issue 25); restore it into a single-machine store instead',
    );
  }

  /**
   * This machine's commits, as SQLite's signal on the replica sees them. Other machines' commits reach a reader on
   * its next catch-up; waking on PostgreSQL's NOTIFY (teamListener.ts) is not wired in yet (docs/team.md).
   */
  changeSignal(options?: { watch?: WatchFn }): ChangeSignal {
    return this.replica.changeSignal(options);
  }

  write<T>(actor: Actor, clock: () => number, fn: (uow: UnitOfWork) => T): Committed<T> {
    const opId = this.newOperationId();
    try {
      return this.writeOnce(opId, actor, clock, fn);
    } catch (error) {
      if (!(error instanceof RetryWrite)) throw teamError(error);
    }
    try {
      return this.writeOnce(opId, actor, clock, fn);
    } catch (error) {
      throw teamError(error instanceof RetryWrite ? new OperationUnknownError(opId, 'the connection broke twice while committing') : error);
    }
  }

  read<T>(clock: () => number, fn: (db: SqliteDb, nowMs: number) => T): T {
    try {
      this.catchUp();
    } catch (error) {
      throw teamError(error);
    }
    return snapshot(this.db, () => fn(this.db, clock()));
  }

  /** Applies every event committed to the log after the replica's head; returns them. */
  catchUp(): StoredEvent[] {
    const head = logHead(this.db) ?? { seq: 0, hash: GENESIS_HASH };
    const fresh = fetchAfter(this.pg, head.seq);
    if (fresh.length === 0) return [];
    return immediate(this.db, () => {
      // Another process of this machine may have applied some meanwhile: start from the head as it is now.
      const now = logHead(this.db) ?? { seq: 0, hash: GENESIS_HASH };
      return applyTeamEvents(
        this.db,
        fresh.filter((e) => e.seq > now.seq),
        now,
      );
    });
  }

  /** Ends the connection (the kernel calls it when it closes). */
  close(): void {
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
    const [, , rows] = this.pg.batch([
      { text: 'BEGIN' },
      { text: 'SELECT seq FROM loopx.lock_head()' },
      { text: 'SELECT first_seq, last_seq FROM loopx.ops WHERE op_id = $1', values: [opId] },
      { text: 'ROLLBACK' },
    ]);
    const row = rows?.[0];
    return row ? { firstSeq: Number(row.first_seq), lastSeq: Number(row.last_seq) } : null;
  }

  private writeOnce<T>(opId: string, actor: Actor, clock: () => number, fn: (uow: UnitOfWork) => T): Committed<T> {
    const events: StoredEvent[] = [];
    let logCommitted = false;
    let value!: T;
    try {
      value = immediate(this.db, () => {
        const replicaHead = logHead(this.db) ?? { seq: 0, hash: GENESIS_HASH };
        const [, lockRows, tail] = this.pg.batch(lockAndFetchStatements(replicaHead.seq));
        try {
          applyTeamEvents(this.db, rowsToEvents(tail ?? []), replicaHead, lockRows?.[0]);
          // The instant is read once the log's head is held: events' times follow their order across machines
          // (as far as the machines' clocks agree).
          const nowMs = clock();
          const at = iso(nowMs);
          const appender = new EventAppender(this.db, actor, at);
          const emit: UnitOfWork['emit'] = (draft, as) => {
            const event = appender.append(draft, as);
            events.push(event);
            return event;
          };
          const result = fn({ db: this.db, nowMs, at, actor, emit });
          appender.finish();
          this.commitLog(opId, events);
          logCommitted = true;
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

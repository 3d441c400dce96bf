import type Pg from 'pg';
import type { SqliteDb } from '../db/sqliteDb';
import { type LogAnchor, logHead } from '../events/anchor';
import type { Actor, StoredEvent } from '../events/eventTypes';
import { GENESIS_HASH } from '../events/hashChain';
import { EventAppender } from '../events/log';
import { iso, systemClock } from '../time';
import type { Committed, UnitOfWork } from '../unitOfWork';
import type { ConnectionSettings } from './connectionSettings';
import { loadPg, unrefClient } from './pgModule';
import { type PgStatement, pgClientConfig, pgErrorFrom } from './syncPg';
import { OperationUnknownError } from './teamErrors';
import { EVENTS_AFTER, SERVER_CLOCK, commitStatements, operationLandedStatements, rowsToEvents } from './teamLog';
import { addTeamTiming, timeTeam } from './teamTiming';

/** The server's clock as a catch-up read it: its ms, its `synchronous_commit`, and when on our clock it was read. */
export interface ServerClock {
  ms: number;
  sync: string;
  at: number;
}

/**
 * A one-shot call's catch-up on the calling thread's own asynchronous client (TeamEngine.catchUpFirst): the events
 * after `afterSeq`; for a write (`keep`), also the server's clock, and the connection kept for the commit. A failure
 * is returned as the same PgError the worker's would be, not thrown: the command's first read or write says it.
 */
export async function fetchFirst(
  settings: ConnectionSettings,
  afterSeq: number,
  keep: boolean,
): Promise<{ fresh: StoredEvent[]; kept: { client: Pg.Client; clock: ServerClock } | null } | { error: unknown }> {
  let client: Pg.Client | null = null;
  const started = performance.now();
  try {
    client = newClient(settings);
    await client.connect();
    addTeamTiming('connectMs', performance.now() - started);
    const fresh = rowsToEvents((await send(client, EVENTS_AFTER, [afterSeq])).rows);
    let kept: { client: Pg.Client; clock: ServerClock } | null = null;
    if (keep) {
      const row = (await send(client, SERVER_CLOCK)).rows[0] as { ms: unknown; sync: unknown };
      kept = { client, clock: { ms: Number(row.ms), sync: String(row.sync), at: performance.now() } };
    }
    addTeamTiming('catchUpFirstMs', performance.now() - started);
    return { fresh, kept };
  } catch (error) {
    endQuietly(client);
    client = null;
    return { error: pgErrorFrom(error) };
  } finally {
    if (client && !keep) endQuietly(client);
  }
}

/**
 * A one-shot write on a team store (an agent's `todo claim`, `todo ship`… through the CLI, one process a call),
 * committed to the log after its command has run, on the connection its catch-up opened on the calling thread: no
 * worker thread (the largest part of what a team write cost beyond SQLite's: docs/team.md#figures).
 *
 * It is optimistic, and checked under the log's lock: the replica is caught up first (TeamEngine.catchUpFirst), the
 * operation runs on it as of that head, its events chained onto it and timed by the server's clock read then, in a
 * replica transaction left open; then BEGIN, hold the log's head and compare it with that head. The same head: nothing
 * the operation read has changed, so its events are what a write holding the lock throughout would have made; they are
 * inserted (the database checks order and authority again) and committed, then the replica. Another head: nothing is
 * sent, the replica rolls back, and the command runs again the ordinary way (`again`). So is a connection lost while
 * committing, once the log says the operation did not land.
 */
export class LaterCommit {
  /** The replica's head the writes chain onto, once the first write began (its transaction open). */
  private base: LogAnchor | null = null;
  private readonly events: StoredEvent[] = [];
  private ended = false;
  constructor(
    private readonly client: Pg.Client,
    private readonly settings: ConnectionSettings,
    /** The log's head as the catch-up left the replica: a write finding another began after a sibling's. */
    readonly caughtUpTo: number,
    /** The server's clock at the catch-up: a write's instant comes from it (one clock for every machine's events). */
    private readonly clock: ServerClock,
  ) {}

  /** Whether a write is under way: its replica transaction is open, and a read inside the process sees it. */
  get open(): boolean {
    return this.base !== null;
  }

  /**
   * Runs a write on the replica caught up by the catch-up, in a replica transaction left open for `settle`, one
   * savepoint a write (a refused one leaves the others). Null when the replica is no longer where the catch-up left it
   * (a sibling process of this machine wrote since): the caller writes the ordinary way, holding the log's head first.
   */
  write<T>(db: SqliteDb, actor: Actor, clock: () => number, fn: (uow: UnitOfWork) => T): Committed<T> | null {
    if (!this.base) {
      db.exec('BEGIN IMMEDIATE');
      const head = logHead(db) ?? { seq: 0, hash: GENESIS_HASH };
      if (head.seq !== this.caughtUpTo) {
        db.exec('ROLLBACK');
        this.end();
        return null;
      }
      this.base = head;
    }
    db.exec('SAVEPOINT loopx_write');
    try {
      // The server's clock as the catch-up read it, plus the time gone since (an injected clock in tests).
      const nowMs = clock === systemClock ? Math.floor(this.clock.ms + performance.now() - this.clock.at) : clock();
      const at = iso(nowMs);
      const appender = new EventAppender(db, actor, at);
      const value = timeTeam('operationMs', () => {
        const result = fn({ db, nowMs, at, actor, emit: appender.emit });
        appender.finish();
        return result;
      });
      db.exec('RELEASE loopx_write');
      this.events.push(...appender.appended);
      return { value, events: appender.appended };
    } catch (error) {
      try {
        db.exec('ROLLBACK TO loopx_write');
        db.exec('RELEASE loopx_write');
      } catch {
        // SQLite ended the whole transaction itself (a full disk, an I/O error): the error that ended it is the answer.
      }
      throw error;
    }
  }

  /**
   * Commits the log, then the replica. `done`: the writes stand (or there were none); `again`: nothing was written and
   * the replica is as before, the command runs again the ordinary way. Throws the database's refusal (replica rolled
   * back), or OperationUnknownError when a lost connection leaves the outcome unknown.
   */
  async settle(db: SqliteDb, opId: string): Promise<'done' | 'again'> {
    try {
      if (!this.base) return 'done';
      if (this.events.length === 0) {
        rollBackReplica(db);
        return 'done';
      }
      const started = performance.now();
      let landed: boolean;
      try {
        landed = await this.commitLog(this.base, opId);
      } catch (error) {
        rollBackReplica(db);
        throw error;
      }
      addTeamTiming('commitLaterMs', performance.now() - started);
      if (!landed) {
        rollBackReplica(db);
        return 'again';
      }
      try {
        db.exec('COMMIT');
      } catch {
        // The log has the write; only the replica failed to keep it. The next catch-up applies it.
        rollBackReplica(db);
      }
      return 'done';
    } finally {
      this.end();
    }
  }

  /** Ends the connection, and a write never settled (the process is going): its replica transaction rolls back. */
  abandon(db: SqliteDb): void {
    if (this.base && !this.ended) rollBackReplica(db);
    this.end();
  }

  /** True when the operation is in the log; false when it surely is not (the head moved, or the connection broke first). */
  private async commitLog(base: LogAnchor, opId: string): Promise<boolean> {
    try {
      await send(this.client, 'BEGIN');
      const held = (await send(this.client, 'SELECT seq, hash FROM loopx.lock_head()')).rows[0] as { seq?: unknown; hash?: unknown };
      if (Number(held?.seq) !== base.seq || String(held?.hash) !== base.hash) {
        await send(this.client, 'ROLLBACK');
        addTeamTiming('headMoved', 1);
        return false;
      }
      await runAll(this.client, commitStatements(opId, this.events));
      return true;
    } catch (error) {
      const refused = pgErrorFrom(error);
      if (!refused.connectionLost) {
        await this.client.query('ROLLBACK').catch(() => {});
        throw refused;
      }
      try {
        return await this.landed(opId);
      } catch {
        throw new OperationUnknownError(opId, refused.message);
      }
    }
  }

  /**
   * Whether the operation committed, asked on a new connection holding the log's head: a COMMIT still in flight on the
   * lost one holds it until it lands or not (TeamEngine.operationLanded, the same question on the worker).
   */
  private async landed(opId: string): Promise<boolean> {
    const client = newClient(this.settings);
    try {
      await client.connect();
      const answers: Pg.QueryResult[] = [];
      for (const s of operationLandedStatements(opId)) answers.push(await client.query(s.text, s.values));
      return (answers[2]?.rows.length ?? 0) > 0;
    } finally {
      endQuietly(client);
    }
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    endQuietly(this.client);
  }
}

/**
 * A client of ours on the calling thread. A connection the server ends while the client is idle (a restart, an idle
 * limit, while the command runs) is an error event: left unheard it would end the process; the next query fails as a
 * lost connection instead, and says so.
 */
function newClient(settings: ConnectionSettings): Pg.Client {
  const client = new (timeTeam('pgLoadMs', loadPg).Client)(pgClientConfig(settings));
  client.on('error', () => {});
  return client;
}

/** Ends a client without waiting: the process answers while the connection says goodbye; its socket keeps nothing alive. */
export function endQuietly(client: Pg.Client | null): void {
  if (!client) return;
  unrefClient(client);
  client.end().catch(() => {});
}

/**
 * Statements sent on one-shot calls' own connections (catch-up and commit), counted as SyncPg.stats counts the
 * worker's: test/team/roundTrips.test.ts holds each verb to its budget.
 */
export const oneShotStats = { statements: 0 };

function send(client: Pg.Client, text: string, values?: unknown[]): Promise<Pg.QueryResult> {
  oneShotStats.statements++;
  return client.query(text, values);
}

async function runAll(client: Pg.Client, statements: readonly PgStatement[]): Promise<void> {
  for (const s of statements) await send(client, s.text, s.values);
}

/** Ends the replica's write transaction, if SQLite has not ended it already (a full disk, an I/O error). */
function rollBackReplica(db: SqliteDb): void {
  try {
    db.exec('ROLLBACK');
  } catch {
    /* no transaction is active */
  }
}

import { pgModulePath } from './pgModule';
import type { ConnectionSettings } from './connectionSettings';
import { LOST_CODES, LOST_WORDS, spawnPgWorker } from './pgWorker';
import { pgClientConnection } from './pgpass';
import { addTeamTiming, teamTimingOn } from './teamTiming';
import { sleepSync } from '../time';
import type * as WorkerThreads from 'node:worker_threads';
import type { MessagePort, Worker } from 'node:worker_threads';
import type Pg from 'pg';

/** node:worker_threads, loaded by the first team call, not by every local store's call that imports this file. */
const threads = () => process.getBuiltinModule('node:worker_threads') as typeof WorkerThreads;

/**
 * A synchronous PostgreSQL client: the kernel's rules and reducers are one synchronous implementation (SQLite's
 * drivers are synchronous), so a team write calls PostgreSQL from inside them. The `pg` client runs in a worker thread;
 * the calling thread posts a batch of statements and sleeps in `Atomics.wait` until the worker has run them all and
 * flipped a shared flag, then takes the reply off a MessagePort with `receiveMessageOnPort` (which needs no event loop
 * turn). One crossing per batch, not per statement: a team write makes two (lock and catch up; insert and commit).
 *
 * The worker keeps one connection, opened on first use and again after it is lost. Only the write path and catch-up
 * use this; LISTEN/NOTIFY runs on an ordinary asynchronous `pg` client (teamLive.ts).
 */

export interface PgStatement {
  text: string;
  values?: unknown[];
}
export type PgRow = Record<string, unknown>;

/** A statement PostgreSQL refused (SQLSTATE `code`), or a connection that was lost (`connectionLost`). */
export class PgError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    /** The connection broke while the batch ran: whether a COMMIT in it took effect is unknown. */
    readonly connectionLost: boolean,
    readonly constraint?: string,
  ) {
    super(message);
    this.name = 'PgError';
  }
}

/** A `pg` client's error as a PgError, judged lost or not by the worker's own rule (pgWorker.ts). */
export function pgErrorFrom(error: unknown): PgError {
  const e = error as { message?: unknown; code?: unknown; constraint?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const message = String(e?.message ?? error);
  const lost = !code || LOST_CODES.includes(code) || LOST_WORDS.test(message);
  return new PgError(message, code, lost, typeof e?.constraint === 'string' ? e.constraint : undefined);
}

/**
 * What a `pg` client of ours connects with, on the worker or the calling thread: the settings, the password loopx read
 * from ~/.pgpass (pgpass.ts: pg's own reading prints a deprecation warning on stderr), and the limits below.
 */
export function pgClientConfig(settings: ConnectionSettings): Pg.ClientConfig {
  return {
    ...pgClientConnection(settings),
    application_name: settings.application_name ?? 'loopx',
    connectionTimeoutMillis: settings.connectTimeoutMs ?? TIMEOUT_DEFAULTS.connectTimeoutMs,
    idle_in_transaction_session_timeout: settings.idleInTransactionTimeoutMs ?? TIMEOUT_DEFAULTS.idleInTransactionTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

/** Test faults: lose the connection before the batch runs, or after it ran (its reply never arrives). */
export type BatchFault = 'lose-before' | 'lose-after';

/**
 * Timeouts, so that no fault leaves a writer or the log's head waiting forever (test/team/partition.test.ts):
 *
 * - a batch: 20 s. A caller blocked in `Atomics.wait` gets `team_unreachable` (or, while committing, the operation
 *   id's lookup) instead of hanging on a silently dropped connection; longer than the idle limit below, so a writer
 *   queued behind a vanished one gets the head once the server has ended the vanished one's transaction.
 * - connecting: 5 s, for a server that accepts TCP and then says nothing (a partition after the SYN).
 * - idle in a transaction: 10 s, set on the server for our sessions. A write holds the log's head from its first
 *   batch to its COMMIT, normally milliseconds apart; a client that vanished between them (a partition, a machine
 *   gone) would otherwise keep every other writer of the team waiting until the server's TCP keepalive notices (two
 *   hours by default). The server ends such a transaction (rolled back, the head free again).
 * - TCP keepalive on our side after 10 s idle, so a connection dead between batches is found before it is used.
 */
export const TIMEOUT_DEFAULTS = { timeoutMs: 20_000, connectTimeoutMs: 5_000, idleInTransactionTimeoutMs: 10_000 } as const;

/** What the worker measured for LOOPX_TIMING (the first reply also says when it started and how long pg took to load). */
interface WorkerTiming {
  bootAt?: number;
  pgLoadMs?: number;
  connectMs?: number;
  queryMs?: number;
}

/**
 * Waits for the worker's flag, then takes its reply off the port, by `deadline` (performance.now()). The worker posts
 * its reply before it flips the flag, and Node's postMessage is synchronous, yet once, in a loaded CI run, the flag was
 * up and the port empty (a conformance test failed `team_unreachable`: "the PostgreSQL worker answered nothing"). Babel
 * met the same with the same protocol and found no cause either (babel/babel#14541); like it, the port is looked at
 * again every few milliseconds until the deadline, as the batch would have waited anyway. Exported for its test.
 */
export function awaitReply(port: MessagePort, flag: Int32Array, deadline: number): { message: unknown } | 'timed-out' | 'no reply' {
  if (Atomics.wait(flag, 0, 0, Math.max(0, deadline - performance.now())) === 'timed-out') return 'timed-out';
  for (;;) {
    const received = threads().receiveMessageOnPort(port);
    if (received) return received;
    if (performance.now() >= deadline) return 'no reply';
    sleepSync(5);
  }
}

export class SyncPg {
  private worker: Worker | null = null;
  private port: MessagePort | null = null;
  private flag = new Int32Array(new SharedArrayBuffer(4));
  private pending: { fault: BatchFault; when: (statements: readonly PgStatement[]) => boolean } | null = null;
  /** Crossings made and the time spent blocked in them: what the bridge costs (bench and tests read it). */
  readonly stats = { batches: 0, statements: 0, waitedMs: 0 };

  constructor(readonly settings: ConnectionSettings = {}) {}

  /** Runs the statements in order on the one connection and returns each one's rows; stops at the first error. */
  batch(statements: PgStatement[]): PgRow[][] {
    let fault: BatchFault | null = null;
    if (this.pending?.when(statements)) {
      fault = this.pending.fault;
      this.pending = null;
    }
    const { port } = this.start();
    Atomics.store(this.flag, 0, 0);
    const started = performance.now();
    this.worker?.postMessage({ statements, fault });
    const timeoutMs = this.settings.timeoutMs ?? TIMEOUT_DEFAULTS.timeoutMs;
    const reply = awaitReply(port, this.flag, started + timeoutMs);
    this.stats.batches++;
    this.stats.statements += statements.length;
    this.stats.waitedMs += performance.now() - started;
    if (reply === 'timed-out' || reply === 'no reply') {
      // The worker may still be inside a transaction: end it (the server rolls back what it had not committed). A reply
      // that comes after all then goes with it, never to the next batch.
      this.close();
      throw new PgError(
        reply === 'timed-out' ? `PostgreSQL did not answer within ${timeoutMs} ms` : 'the PostgreSQL worker answered nothing',
        undefined,
        true,
      );
    }
    const message = reply.message as (
      { ok: true; results: PgRow[][] } | { ok: false; message: string; code?: string; lost: boolean; constraint?: string }
    ) & { timing?: WorkerTiming };
    if (teamTimingOn()) this.recordTiming(statements.length, performance.now() - started, message.timing);
    if (!message.ok) throw new PgError(message.message, message.code, message.lost, message.constraint);
    return message.results;
  }

  query(text: string, values?: unknown[]): PgRow[] {
    return this.batch([{ text, values }])[0] ?? [];
  }

  /** Makes the next batch `when` picks fail as a lost connection would (fault tests only). */
  injectFault(fault: BatchFault, when: (statements: readonly PgStatement[]) => boolean = () => true): void {
    this.pending = { fault, when };
  }

  /**
   * Starts the worker and has it connect now, in parallel with what the calling thread does before its first batch
   * (the worker's start, loading pg, TCP and authentication are most of a one-shot call's cost: docs/team.md#figures).
   */
  warm(): void {
    // When in the process the worker was asked for (LOOPX_TIMING): how much start-up it can still hide behind.
    const asked = performance.now();
    addTeamTiming('warmAtMs', asked);
    this.start(true);
    // What starting it costs the calling thread itself (the thread's creation, the settings, the init message).
    addTeamTiming('workerSpawnMs', performance.now() - asked);
  }

  close(): void {
    void this.worker?.terminate();
    this.port?.close();
    this.worker = null;
    this.port = null;
    // A worker given up on (a timeout) may still flip its flag while it dies: the next worker gets a flag of its own,
    // so that late flip cannot wake the next batch's wait before its reply exists.
    this.flag = new Int32Array(new SharedArrayBuffer(4));
  }

  private spawnedAt = 0;

  /** LOOPX_TIMING's parts of one batch (teamTiming.ts). */
  private recordTiming(statements: number, waitedMs: number, timing: WorkerTiming | undefined): void {
    // Each of a one-shot call's few batches apart; a long-lived process's later ones summed (a bounded line).
    const n = this.stats.batches <= 4 ? String(this.stats.batches) : 'Later';
    addTeamTiming('batches', 1);
    addTeamTiming('statements', statements);
    addTeamTiming(`batch${n}Ms`, waitedMs);
    if (timing?.bootAt !== undefined) addTeamTiming('workerBootMs', timing.bootAt - this.spawnedAt);
    if (timing?.pgLoadMs !== undefined) addTeamTiming('pgLoadMs', timing.pgLoadMs);
    if (timing?.connectMs !== undefined) addTeamTiming('connectMs', timing.connectMs);
    if (timing?.queryMs !== undefined) addTeamTiming(`batch${n}QueryMs`, timing.queryMs);
  }

  private start(connectNow = false): { port: MessagePort } {
    if (this.worker && this.port) return { port: this.port };
    const { port1, port2 } = new (threads().MessageChannel)();
    const pgPath = pgModulePath();
    const started = spawnPgWorker(pgPath);
    this.spawnedAt = started.spawnedAt;
    this.worker = started.worker;
    const config = pgClientConfig(this.settings);
    this.worker.postMessage({ init: { port: port2, flag: this.flag, config, connectNow } }, [port2]);
    // Neither keeps a CLI process alive once its work is done.
    port1.unref();
    this.port = port1;
    return { port: port1 };
  }
}

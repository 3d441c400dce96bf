import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * The write path's worker thread (SyncPg, syncPg.ts): its source, and its start. A worker is started knowing only where
 * `pg` is; it loads pg at once and waits for its `init` message (the connection's settings, the reply port, the
 * shared flag) before it connects. So bin/loopx can start one in a team-mode workspace before the verb's bundle loads
 * (startEarlyPgWorker: dist/pgWorker.js, a bundle of this file alone), and the SyncPg the command opens adopts it
 * (takeEarlyPgWorker): the thread's start and pg's load (most of a one-shot team call's extra cost, docs/team.md#figures)
 * then run beside the bundle's load instead of after it. What the worker connects to is still decided in one place,
 * the bundle's (teamPointer.ts); an early worker that nobody adopts dies with the process.
 */

/**
 * Run in the worker before pg loads. pg asks whether it runs in a Cloudflare Worker when it loads: with no `navigator`
 * (Node 20; Node 21+ has one, whose userAgent answers at once) it touches the global `Response`, which loads Node's
 * whole fetch implementation (undici, zlib): in a worker on a loaded 2-core machine, pg's load took 234 ms with it and
 * 71 ms without (docs/team.md#figures). The worker runs nothing but pg, so it gets the answer Node 21+ gives.
 */
export const PG_LOAD_PRELUDE =
  "if (typeof navigator === 'undefined') globalThis.navigator = { userAgent: 'Node.js/' + process.versions.node };";

// The worker's source: plain CommonJS run with `eval`, so it needs no separate file in any bundle (the CLI, the
// extension, vitest). `pg` is required by the absolute path the calling thread resolved, as soon as the thread runs:
// the connection's settings, the reply port and the shared flag come later, in the first message (`init`), so a
// worker can be started before anyone knows what it will connect to (bin/loopx, startEarlyPgWorker below).
const WORKER_SOURCE = `
const bootAt = performance.timeOrigin + performance.now();
const { workerData, parentPort } = require('node:worker_threads');
${PG_LOAD_PRELUDE}
// A pg that cannot be loaded (a damaged install) is said to the first batch, which would otherwise wait out its timeout.
let pg = null, loadError = null;
try { pg = require(workerData.pgPath); } catch (error) { loadError = error; }
// LOOPX_TIMING's parts measured here (teamTiming.ts): sent with the first reply, then the connect and query times.
let timing = { bootAt, pgLoadMs: performance.timeOrigin + performance.now() - bootAt };
let port = null, flag = null, settings = null;
let client = null;
// The connection being opened: the eager one (init.connectNow) and a batch that arrives meanwhile share it.
let opening = null;
const LOST = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', '57P01', '57P02', '57P03', '57P05', '25P03', '08000', '08003', '08006']);
function connection() {
  if (client) return Promise.resolve(client);
  opening ??= open().finally(() => { opening = null; });
  return opening;
}
async function open() {
  const fresh = new pg.Client({
    connectionString: settings.connectionString,
    password: settings.password,
    application_name: settings.application_name,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    idle_in_transaction_session_timeout: settings.idleInTransactionTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10000,
  });
  // A connection that breaks between batches is dropped; the next batch opens another.
  fresh.on('error', () => { if (client === fresh) client = null; });
  const connecting = performance.now();
  await fresh.connect();
  timing.connectMs = (timing.connectMs || 0) + performance.now() - connecting;
  client = fresh;
  return fresh;
}
function drop() {
  const old = client;
  client = null;
  if (old) { try { old.connection.stream.destroy(); } catch {} old.end().catch(() => {}); }
}
// Whether a transaction is open on the current connection (a BEGIN ran, no COMMIT or ROLLBACK since). A connection
// that broke between two batches of one transaction (pg_terminate_backend, the server's idle limit) is replaced on
// the next batch; that batch must then fail as lost, not run on the new connection: there, outside any transaction,
// each statement would commit on its own, without the log's head. The commit batch's operation id would land while
// its events were refused, and the engine, finding the id, would keep a write the log does not have
// (replica_diverged; found by test/team/faults.test.ts, pg_terminate_backend).
let inTransaction = false;
async function run({ statements, fault }) {
  try {
    if (loadError) throw new Error('the PostgreSQL client could not be loaded from ' + workerData.pgPath + ': ' + loadError.message);
    const begins = statements[0] && statements[0].text === 'BEGIN';
    if (!client && inTransaction && !begins) {
      inTransaction = false;
      throw Object.assign(new Error('the connection broke inside a transaction (the server rolled it back)'), { code: 'ECONNRESET' });
    }
    const c = await connection();
    const querying = performance.now();
    if (fault === 'lose-before') { drop(); throw Object.assign(new Error('connection lost (test fault)'), { code: 'ECONNRESET' }); }
    const results = [];
    for (const s of statements) {
      if (s.text === 'BEGIN') inTransaction = true;
      results.push((await c.query({ text: s.text, values: s.values })).rows);
      if (s.text === 'COMMIT' || s.text === 'ROLLBACK') inTransaction = false;
    }
    if (fault === 'lose-after') { drop(); throw Object.assign(new Error('connection lost (test fault)'), { code: 'ECONNRESET' }); }
    timing.queryMs = performance.now() - querying;
    return { ok: true, results };
  } catch (error) {
    const code = error && error.code;
    const lost = !code || LOST.has(code) || /Connection terminated|not queryable|ECONN/.test(String(error && error.message));
    if (lost) { drop(); inTransaction = false; }
    return { ok: false, message: String(error && error.message), code: code || undefined, lost, constraint: error && error.constraint };
  }
}
parentPort.on('message', async (request) => {
  if (request.init) {
    ({ port, flag, settings } = request.init);
    // Opened before the first batch is asked for, while the calling thread opens the replica and runs the command up
    // to its first query. A failure here is not reported: the first batch opens again (or shares this attempt) and
    // says why, in the same words as without it.
    if (request.init.connectNow) connection().catch(() => {});
    return;
  }
  const reply = await run(request);
  reply.timing = timing;
  timing = {};
  port.postMessage(reply);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
`;

/** A started worker thread and what LOOPX_TIMING says about it. */
export interface PgWorker {
  worker: Worker;
  /** The `pg` file it loads (an absolute path). */
  pgPath: string;
  /** When it was started, on the clock of performance.timeOrigin + performance.now(). */
  spawnedAt: number;
  /** Started by bin/loopx before the command's bundle loaded. */
  early: boolean;
}

/** Starts a worker that loads `pg` from `pgPath` and waits for its `init` message. */
export function spawnPgWorker(pgPath: string, early = false): PgWorker {
  const spawnedAt = performance.timeOrigin + performance.now();
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { pgPath } });
  // It never keeps a CLI process alive once the process's work is done.
  worker.unref();
  return { worker, pgPath, spawnedAt, early };
}

// One slot per process, shared by bin/loopx's copy of this module (dist/pgWorker.js) and the bundle's (a symbol
// registered with the runtime, the same from any bundle).
const EARLY = Symbol.for('loopx.earlyPgWorker');
type Slot = { [EARLY]?: PgWorker };

/** bin/loopx, in a team-mode workspace: starts the worker the command's SyncPg will adopt. */
export function startEarlyPgWorker(pgPath: string): void {
  (globalThis as Slot)[EARLY] ??= spawnPgWorker(resolve(pgPath), true);
}

/** The worker bin/loopx started, once, if it loads the same `pg` this bundle would; null otherwise. */
export function takeEarlyPgWorker(pgPath: string): PgWorker | null {
  const slot = globalThis as Slot;
  const early = slot[EARLY];
  if (!early) return null;
  delete slot[EARLY];
  if (early.pgPath === resolve(pgPath)) return early;
  void early.worker.terminate(); // another pg than this bundle's (a mixed install): not used
  return null;
}

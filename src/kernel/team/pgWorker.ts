import type * as WorkerThreads from 'node:worker_threads';
import type { Worker } from 'node:worker_threads';

/**
 * The write path's worker thread (SyncPg, syncPg.ts): its source and its start. A worker is started knowing only where
 * `pg` is; it loads pg at once and is told what to connect to in its first message (`init`: the client's settings,
 * the reply port, the shared flag). So a worker could be started before the connection is resolved: bin/loopx starting
 * it before the verb's bundle loads was tried and measured, and not kept (docs/performance.md, issue 38).
 */

/**
 * Run in the worker before pg loads. pg asks whether it runs in a Cloudflare Worker when it loads: with no `navigator`
 * (Node 20; Node 21+ has one, whose userAgent answers at once) it touches the global `Response`, which loads Node's
 * whole fetch implementation (undici, zlib): in a worker on a loaded 2-core machine, pg's load took 234 ms with it and
 * 71 ms without (docs/team.md#figures). The worker runs nothing but pg, so it gets the answer Node 21+ gives: where there
 * is no `navigator` at all, the rule loadPg (pgModule.ts) follows on the calling thread.
 */
export const PG_LOAD_PRELUDE =
  "if (!('navigator' in globalThis)) globalThis.navigator = { userAgent: 'Node.js/' + process.versions.node };";

/**
 * Error codes that mean the connection is gone (a network error, the server shutting down or ending the session,
 * a transaction it aborted for idling): whether a COMMIT in flight took effect is then unknown. A pg error without
 * a code, or with these words, is one too. Used by the worker below and by a client on the calling thread
 * (`pgErrorFrom`, syncPg.ts).
 */
export const LOST_CODES = [
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  '57P05',
  '25P03',
  '08000',
  '08003',
  '08006',
];
export const LOST_WORDS = /Connection terminated|not queryable|ECONN/;

// The worker's source: plain CommonJS run with `eval`, so it needs no separate file in any bundle (the CLI, the
// extension, vitest). `pg` is required by the absolute path the calling thread resolved, as soon as the thread runs:
// the connection's settings, the reply port and the shared flag come later, in the first message (`init`).
const WORKER_SOURCE = `
const bootAt = performance.timeOrigin + performance.now();
const { workerData, parentPort } = require('node:worker_threads');
${PG_LOAD_PRELUDE}
if (workerData.compileCacheDir) try { require('node:module').enableCompileCache(workerData.compileCacheDir); } catch {}
// A pg that cannot be loaded (a damaged install) is said to the first batch, which would otherwise wait out its timeout.
let pg = null, loadError = null;
try { pg = require(workerData.pgPath); } catch (error) { loadError = error; }
// LOOPX_TIMING's parts measured here (teamTiming.ts): sent with the first reply, then the connect and query times.
let timing = { bootAt, pgLoadMs: performance.timeOrigin + performance.now() - bootAt };
let port = null, flag = null, config = null;
let client = null;
// The connection being opened: the eager one (init.connectNow) and a batch that arrives meanwhile share it.
let opening = null;
const LOST = new Set(${JSON.stringify(LOST_CODES)});
function connection() {
  if (client) return Promise.resolve(client);
  opening ??= open().finally(() => { opening = null; });
  return opening;
}
async function open() {
  // The client's settings as the calling thread made them (pgClientConfig, syncPg.ts).
  const fresh = new pg.Client(config);
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
    const lost = !code || LOST.has(code) || ${LOST_WORDS}.test(String(error && error.message));
    if (lost) { drop(); inTransaction = false; }
    return { ok: false, message: String(error && error.message), code: code || undefined, lost, constraint: error && error.constraint };
  }
}
parentPort.on('message', async (request) => {
  if (request.init) {
    ({ port, flag, config } = request.init);
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

/** A started worker thread and when it was started (LOOPX_TIMING). */
export interface PgWorker {
  worker: Worker;
  /** When it was started, on the clock of performance.timeOrigin + performance.now(). */
  spawnedAt: number;
}

/** Starts a worker that loads `pg` from `pgPath` and waits for its `init` message. */
export function spawnPgWorker(pgPath: string): PgWorker {
  const spawnedAt = performance.timeOrigin + performance.now();
  // Loaded here, not at import: node:worker_threads (and the streams it pulls in) costs a local store's every call ~4 ms.
  const { Worker } = process.getBuiltinModule('node:worker_threads') as typeof WorkerThreads;
  // The worker compiles pg through the compile cache the calling thread uses (bin/loopx's, where no agent can write),
  // never Node's default in the temp folder; none where the calling thread has none (VS Code, tests).
  const nodeModule = process.getBuiltinModule('node:module') as { getCompileCacheDir?: () => string | undefined };
  const compileCacheDir = nodeModule.getCompileCacheDir?.();
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { pgPath, compileCacheDir } });
  // It never keeps a CLI process alive once the process's work is done.
  worker.unref();
  return { worker, spawnedAt };
}

import { MessageChannel, Worker } from 'node:worker_threads';
import { afterEach, expect, test } from 'vitest';
import { awaitReply } from './syncPg';

/**
 * A stand-in for the PostgreSQL worker that answers in a given order: it flips the flag (and wakes the caller) first,
 * and posts its reply `replyAfterMs` later (never with -1): what the caller met once in a loaded run, made certain.
 */
const LATE_REPLIER = `
const { workerData } = require('node:worker_threads');
const { port, flag, replyAfterMs } = workerData;
Atomics.store(flag, 0, 1);
Atomics.notify(flag, 0);
if (replyAfterMs >= 0) setTimeout(() => port.postMessage({ ok: true, results: [[{ late: true }]] }), replyAfterMs);
else setTimeout(() => {}, 60_000);
`;

const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.terminate()));
});

function lateReplier(replyAfterMs: number) {
  const { port1, port2 } = new MessageChannel();
  const flag = new Int32Array(new SharedArrayBuffer(4));
  workers.push(new Worker(LATE_REPLIER, { eval: true, workerData: { port: port2, flag, replyAfterMs }, transferList: [port2] }));
  return { port: port1, flag };
}

test('a flag raised before the reply is on the port: the caller waits for the reply, within its deadline', () => {
  const { port, flag } = lateReplier(150);
  expect(awaitReply(port, flag, performance.now() + 10_000)).toEqual({ message: { ok: true, results: [[{ late: true }]] } });
});

test('a flag raised and no reply by the deadline is "no reply"; no flag by the deadline is "timed-out"', () => {
  const silent = lateReplier(-1);
  expect(awaitReply(silent.port, silent.flag, performance.now() + 2_000)).toBe('no reply');
  const { port1 } = new MessageChannel();
  expect(awaitReply(port1, new Int32Array(new SharedArrayBuffer(4)), performance.now() + 200)).toBe('timed-out');
  port1.close();
});

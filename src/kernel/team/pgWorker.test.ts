import { join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { expect, test } from 'vitest';
import { spawnPgWorker } from './pgWorker';

test('a worker whose pg cannot be loaded answers its first batch as a lost connection, naming the file, not never', async () => {
  const missing = join(__dirname, 'no-such-pg.js');
  const { worker } = spawnPgWorker(missing);
  const { port1, port2 } = new MessageChannel();
  try {
    const flag = new Int32Array(new SharedArrayBuffer(4));
    worker.postMessage({ init: { port: port2, flag, config: {}, connectNow: true } }, [port2]);
    const reply = new Promise<Record<string, unknown>>((resolve) => port1.once('message', resolve));
    worker.postMessage({ statements: [{ text: 'SELECT 1' }], fault: null });
    expect(await reply).toMatchObject({ ok: false, lost: true, message: expect.stringContaining(`could not be loaded from ${missing}`) });
    // The worker posts its reply, then raises the flag the caller waits on: wait for the flag (up to 5 s), not the reply.
    for (let i = 0; i < 500 && Atomics.load(flag, 0) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(Atomics.load(flag, 0)).toBe(1);
  } finally {
    port1.close();
    await worker.terminate();
  }
});

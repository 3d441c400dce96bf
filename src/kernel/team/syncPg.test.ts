import { Worker } from 'node:worker_threads';
import { expect, test } from 'vitest';
import { pgModulePath } from './pgModule';
import { PG_LOAD_PRELUDE } from './pgWorker';

/** Node's own modules a fresh worker has loaded after `prelude` and loading pg (process.moduleLoadList). */
function loadedWithPg(prelude: string): Promise<string[]> {
  const source = `${prelude}
require(${JSON.stringify(pgModulePath())});
require('node:worker_threads').parentPort.postMessage(process.moduleLoadList);`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true });
    worker.once('error', reject);
    worker.once('message', (list: string[]) => {
      void worker.terminate();
      resolve(list);
    });
  });
}

test("the write path's worker loads pg without Node's fetch implementation (undici), on every Node", async () => {
  const fetchModules = (list: string[]) => list.filter((m) => /undici|zlib/.test(m));
  expect(fetchModules(await loadedWithPg(PG_LOAD_PRELUDE))).toEqual([]);
  // Without the prelude, Node 20 (no navigator) loads it: what the prelude is there for.
  if (typeof (globalThis as { navigator?: unknown }).navigator === 'undefined')
    expect(fetchModules(await loadedWithPg('')).length).toBeGreaterThan(0);
});

import { afterEach, beforeEach, expect, test } from 'vitest';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { openDb } from '../../src/kernel/db/openDb';
import { Kernel } from '../../src/kernel/kernel';
import { loopxAsync, workspace } from './harness';

let ws: { root: string; dispose(): void };
beforeEach(() => (ws = workspace()));
afterEach(() => ws.dispose());

test('six loopx init at once on a fresh folder all succeed, one creates the store, and its log starts once', async () => {
  // Several rounds: the window a half-made store showed in was short, and a loaded machine widens it or not.
  for (let round = 0; round < 4; round++) {
    const root = join(ws.root, `round-${round}`);
    mkdirSync(root);
    const runs = await Promise.all(Array.from({ length: 6 }, () => loopxAsync(['init', '--json'], { cwd: root })));
    expect(
      runs.map((r) => [r.code, r.json.ok]),
      runs.map((r) => r.stdout + r.stderr).join('\n'),
    ).toEqual(Array.from({ length: 6 }, () => [0, true]));
    expect(runs.filter((r) => (r.json.data as { created: boolean }).created)).toHaveLength(1);
    const db = openDb(Kernel.storePath(root));
    try {
      expect(db.prepare(`SELECT count(*) AS n FROM events WHERE kind = 'store.initialized'`).get()?.n).toBe(1);
    } finally {
      db.close();
    }
  }
});

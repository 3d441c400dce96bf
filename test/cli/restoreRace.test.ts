import { describe, expect, test } from 'vitest';
import { openDb } from '../../src/kernel/db/openDb';
import { Kernel } from '../../src/kernel/kernel';
import { loopx, loopxAsync, startGoal, workspace } from './harness';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTtyAsync } from './pty';

function titles(path: string): Set<string> {
  const db = openDb(path);
  try {
    return new Set(
      db
        .prepare('SELECT title FROM todos')
        .all()
        .map((r) => String(r.title)),
    );
  } finally {
    db.close();
  }
}

describe.skipIf(!PTY_AVAILABLE)(`restore under concurrent writers${PTY_AVAILABLE ? '' : ` — SKIPPED: ${PTY_SKIP_REASON}`}`, () => {
  test('every acknowledged write is in the restored store or in the copy saved before it, over repeated rounds', async () => {
    const ws = workspace();
    try {
      const cli = (args: string[]) => loopx(args, { cwd: ws.root });
      cli(['init']);
      cli(['goal', 'create', '--title', 'g']);
      startGoal(ws.root);
      const backup = (cli(['backup', '--json']).json.data as { path: string }).path;
      const acknowledged: string[] = [];
      const saved: string[] = [];
      let stop = false;
      const writer = async (name: string) => {
        for (let n = 0; !stop; n++) {
          const title = `${name}-${n}`;
          const run = await loopxAsync(['todo', 'add', '--goal', 'G1', '--title', title, '--json'], {
            cwd: ws.root,
            env: { LOOPX_AGENT: name },
          });
          if (run.code === 0 && run.json.ok) acknowledged.push(title);
        }
      };
      const writers = ['w1', 'w2', 'w3'].map(writer);
      for (let round = 0; round < 3; round++) {
        const before = acknowledged.length;
        while (acknowledged.length < before + 6) await new Promise((r) => setTimeout(r, 20));
        const restore = await loopxTtyAsync(['restore', backup, '--json'], 'restore', { cwd: ws.root });
        expect(restore.json, restore.stderr).toMatchObject({ ok: true });
        saved.push((restore.json?.data as { saved: { path: string } }).saved.path);
      }
      const after = acknowledged.length;
      while (acknowledged.length < after + 6) await new Promise((r) => setTimeout(r, 20));
      stop = true;
      await Promise.all(writers);

      const found = new Set([...titles(Kernel.storePath(ws.root)), ...saved.flatMap((p) => [...titles(p)])]);
      const lost = acknowledged.filter((t) => !found.has(t));
      expect(acknowledged.length).toBeGreaterThan(20);
      expect(lost).toEqual([]);
      expect(cli(['log', 'verify']).code).toBe(0);
      expect(cli(['doctor']).code).toBe(0);
      // Ids never repeat across the restores: every todo id the writers were given is distinct.
      const ids = new Set<string>();
      for (const path of [Kernel.storePath(ws.root), ...saved]) {
        const db = openDb(path);
        for (const r of db.prepare('SELECT id, title FROM todos').all()) ids.add(`${String(r.id)}=${String(r.title)}`);
        db.close();
      }
      const byId = new Map<string, Set<string>>();
      for (const pair of ids) {
        const [id, title] = pair.split('=') as [string, string];
        byId.set(id, (byId.get(id) ?? new Set()).add(title));
      }
      expect([...byId.entries()].filter(([, t]) => t.size > 1)).toEqual([]);
    } finally {
      ws.dispose();
    }
  }, 180_000);
});

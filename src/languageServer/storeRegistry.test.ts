import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { Kernel } from '../kernel/kernel';
import { createGoal } from '../kernel/goals/goals';
import { teamPointerPath } from '../kernel/team/teamPointer';
import { StoreRegistry } from './storeRegistry';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

test("a goal file's store follows a team pointer written and removed in a terminal", () => {
  const root = mkdtempSync(join(tmpdir(), 'loopx-lsp-registry-'));
  roots.push(root);
  const { kernel } = Kernel.init(root, { actor: { name: 'ada', kind: 'human', channel: 'tty' } });
  createGoal(kernel, { title: 'here' });
  kernel.close();
  const registry = new StoreRegistry(() => {});
  const file = join(root, 'plan.goal.md');
  try {
    const own = registry.forFile(file);
    expect(own.store?.kernel.storeFile).toBe(Kernel.storePath(root));
    // `loopx team join`: the pointer names a team store (here a port nothing listens on, so opening it is refused).
    writeFileSync(teamPointerPath(root), JSON.stringify({ version: 1, database: 'postgresql://ada@127.0.0.1:1/elsewhere' }));
    const team = registry.forFile(file);
    expect(team.store).toBeNull();
    expect(team.problem).toMatch(/127\.0\.0\.1:1\/elsewhere.*cannot be reached/);
    expect(own.store?.kernel.db.isOpen).toBe(false);
    // `loopx team leave`: the folder's own store again, at once (not after the retry interval of a failed open).
    rmSync(teamPointerPath(root));
    const back = registry.forFile(file);
    expect(back.problem).toBeNull();
    expect(back.store?.read((db) => db.prepare('SELECT title FROM goals').all())).toEqual([{ title: 'here' }]);
  } finally {
    registry.dispose();
  }
});

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { Kernel } from '../kernel/kernel';
import { worktreeRepo } from '../../test/fixtures/worktreeRepo';
import { CLEAN_EVERY_MS, WorktreeCleaner } from './worktreeCleaning';

/** The automatic worktree clean-up (loopx run --clean-worktrees, VS Code's loopx.worktrees.cleanAfter), with real git. */
const repo = worktreeRepo();
afterAll(() => {
  repo.kernel.close();
  repo.cleanUp();
});

describe('the automatic worktree clean-up', () => {
  test('runs at once, then at most hourly and one pass at a time; a dirty folder is only reported, branches stay', async () => {
    const shipped = repo.ship('Parse quoted fields', { 'parse.ts': 'export const parse = 1;\n' });
    const left = repo.ship('Write the docs', { 'docs.md': '# Docs\n' });
    writeFileSync(join(left.path, 'notes.md'), 'not committed\n');
    // Eight days on, by the kernel's clock (the todos' last events are now "8 days ago").
    const later = Date.now() + 8 * 86_400_000;
    const kernel = Kernel.open(repo.root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' }, clock: () => later });
    let wall = 1_000_000;
    const cleaner = new WorktreeCleaner(() => wall);
    try {
      const first = cleaner.maybeClean(kernel, 7 * 86_400);
      // A second call while the first pass runs does nothing.
      expect(await cleaner.maybeClean(kernel, 7 * 86_400)).toBeNull();
      const cleaned = await first;
      expect(cleaned?.removed.map((w) => w.todoId)).toEqual([shipped.todoId]);
      expect(cleaned?.kept.map((w) => [w.todoId, w.uncommitted])).toEqual([[left.todoId, 1]]);
      expect(existsSync(shipped.path)).toBe(false);
      expect(readFileSync(join(left.path, 'notes.md'), 'utf8')).toBe('not committed\n');
      expect(repo.git(['rev-parse', '--verify', '--quiet', shipped.branch])).not.toBe('');
      // The removal is the kernel's (the person's standing word), in the log.
      const removed = kernel.read((db) => db.prepare(`SELECT actor_kind FROM events WHERE kind = 'worktree.removed'`).all());
      expect(removed.map((r) => r.actor_kind)).toEqual(['kernel']);
      wall += CLEAN_EVERY_MS - 1;
      expect(await cleaner.maybeClean(kernel, 7 * 86_400)).toBeNull();
      wall += 1;
      expect((await cleaner.maybeClean(kernel, 7 * 86_400))?.kept.map((w) => w.todoId)).toEqual([left.todoId]);
    } finally {
      kernel.close();
    }
  });
});

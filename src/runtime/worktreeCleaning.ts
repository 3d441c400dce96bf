import type { Kernel } from '../kernel/kernel';
import { type Cleaned, autoCleanWorktrees } from '../kernel/worktrees/hygiene';

/** The automatic clean-up runs at most this often (its first pass at its first chance). */
export const CLEAN_EVERY_MS = 3_600_000;

/**
 * The automatic worktree clean-up a person turned on (`loopx run --clean-worktrees AGE`, VS Code's
 * `loopx.worktrees.cleanAfter`): at its first chance, then at most hourly, one pass at a time. The kernel removes the
 * folders as the person's standing word, never with force: a folder with uncommitted changes is only reported, and
 * branches always stay. git runs as non-blocking children (VS Code's extension host keeps serving the editor).
 */
export class WorktreeCleaner {
  private last = Number.NEGATIVE_INFINITY;
  private running = false;

  constructor(private readonly now: () => number = Date.now) {}

  /** What the pass removed and kept; null when it is not time yet or a pass is under way. */
  async maybeClean(kernel: Kernel, olderThanSeconds: number): Promise<Cleaned | null> {
    if (this.running || this.now() - this.last < CLEAN_EVERY_MS) return null;
    this.last = this.now();
    this.running = true;
    try {
      const k = kernel.as({ name: 'kernel', kind: 'kernel' });
      return await autoCleanWorktrees(k, { olderThanSeconds, nowMs: k.read((_db, now) => now) });
    } finally {
      this.running = false;
    }
  }
}

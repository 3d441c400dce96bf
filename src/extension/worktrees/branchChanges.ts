import { type ChangeSummary, changeSummary } from '../../kernel/worktrees/changeSummary';
import type { WorktreeRow } from '../../kernel/worktrees/worktreeRows';
import type { CardChange } from '../../protocol/boardProtocol';
import { cardChangeOf } from './cardChange';

/** A live branch is read from git again at most this often, however often the store changes (turns write a lot). */
const LIVE_FOR_MS = 5_000;

type Row = WorktreeRow & { todoStatus: string };

/**
 * Each todo's branch as git has it, through the kernel's `changeSummary` (what `todo show` prints): the board and the
 * tree read it here, never from git themselves. git is asked again when the store's row changed (a landing, a turn's
 * end) or when a live branch's reading is older than a few seconds; a landed one is read once.
 */
export class BranchChanges {
  private readonly seen = new Map<string, { key: string; at: number; change: CardChange | null }>();

  constructor(private readonly onError: (todoId: string, error: unknown) => void = () => {}) {}

  read(root: string, rows: readonly Row[], nowMs = Date.now()): Map<string, CardChange> {
    const out = new Map<string, CardChange>();
    for (const row of rows) {
      const key = JSON.stringify([row.status, row.removedAt, row.landedAt, row.prUrl, row.todoStatus, row.branch, row.path]);
      const live = row.status === 'open' || row.status === 'pr';
      const last = this.seen.get(row.todoId);
      const fresh = last && last.key === key && (!live || nowMs - last.at < LIVE_FOR_MS);
      const change = fresh ? last.change : this.summarize(root, row);
      if (!fresh) this.seen.set(row.todoId, { key, at: nowMs, change });
      if (change) out.set(row.todoId, change);
    }
    return out;
  }

  /** Forgets every reading: the next read asks git again (Refresh, and right after a person landed a branch). */
  forget(): void {
    this.seen.clear();
  }

  private summarize(root: string, row: Row): CardChange | null {
    let summary: ChangeSummary;
    try {
      summary = changeSummary(root, row);
    } catch (error) {
      // git gone or broken: the card shows no branch rather than no board; the log says why.
      this.onError(row.todoId, error);
      return null;
    }
    return cardChangeOf(summary);
  }
}

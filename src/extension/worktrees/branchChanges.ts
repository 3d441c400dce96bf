import { type ChangeSummary, changeSummary } from '../../kernel/worktrees/changeSummary';
import type { WorktreeRow } from '../../kernel/worktrees/worktreeRows';
import type { CardChange } from '../../protocol/boardProtocol';
import { cardChangeOf } from './cardChange';

/** A live branch is read from git again at most this often, however often the store changes (turns write a lot). */
const LIVE_FOR_MS = 5_000;

type Row = WorktreeRow & { todoStatus: string };

interface Reading {
  key: string;
  at: number;
  change: CardChange | null;
}

/**
 * Each todo's branch as git has it, through the kernel's `changeSummary` (what `todo show` prints): the board and the
 * tree read it here, never from git themselves. A reading never waits for git: it gives what is known and has git
 * asked in the background (non-blocking children, so the extension host keeps serving the editor) when the store's
 * row changed (a landing, a turn's end) or a live branch's reading is older than a few seconds; a landed one is read
 * once. `onRead` fires when git's answer changed what is known, so the views ask again.
 */
export class BranchChanges {
  private readonly seen = new Map<string, Reading>();
  private readonly reading = new Map<string, Promise<void>>();
  /** Bumped by forget(): a reading started before it is not kept. */
  private generation = 0;

  constructor(
    private readonly onError: (todoId: string, error: unknown) => void = () => {},
    private readonly onRead: () => void = () => {},
  ) {}

  read(root: string, rows: readonly Row[], nowMs = Date.now()): Map<string, CardChange> {
    const out = new Map<string, CardChange>();
    for (const row of rows) {
      const key = JSON.stringify([row.status, row.removedAt, row.landedAt, row.prUrl, row.todoStatus, row.branch, row.path]);
      const live = row.status === 'open' || row.status === 'pr';
      const last = this.seen.get(row.todoId);
      const fresh = last && last.key === key && (!live || nowMs - last.at < LIVE_FOR_MS);
      if (!fresh && !this.reading.has(row.todoId)) this.start(root, row, key, nowMs);
      if (last?.change) out.set(row.todoId, last.change);
    }
    return out;
  }

  /** Resolves when every reading under way has finished (and what it learned is known). */
  async settled(): Promise<void> {
    while (this.reading.size) await Promise.all(this.reading.values());
  }

  /**
   * Every reading goes stale: the next read asks git again (Refresh, and right after a person landed a branch). What
   * git said last is still shown until it answers, so the cards do not lose their branch for a moment.
   */
  forget(): void {
    this.generation++;
    for (const [todoId, reading] of this.seen) this.seen.set(todoId, { ...reading, key: '' });
    this.reading.clear();
  }

  private start(root: string, row: Row, key: string, nowMs: number): void {
    const generation = this.generation;
    const done = this.summarize(root, row).then((change) => {
      if (generation !== this.generation) return;
      this.reading.delete(row.todoId);
      const before = this.seen.get(row.todoId);
      this.seen.set(row.todoId, { key, at: nowMs, change });
      // Only a reading that changed what is known calls for the views to ask again (no loop on a slow git).
      if (!before || JSON.stringify(before.change) !== JSON.stringify(change)) this.onRead();
    });
    this.reading.set(row.todoId, done);
  }

  private async summarize(root: string, row: Row): Promise<CardChange | null> {
    let summary: ChangeSummary;
    try {
      summary = await changeSummary(root, row);
    } catch (error) {
      // git gone or broken: the card shows no branch rather than no board; the log says why.
      this.onError(row.todoId, error);
      return null;
    }
    return cardChangeOf(summary);
  }
}

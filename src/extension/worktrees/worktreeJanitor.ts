import * as vscode from 'vscode';
import { parseDuration } from '../../kernel/time';
import type { Cleaned } from '../../kernel/worktrees/hygiene';
import { CLEAN_EVERY_MS, WorktreeCleaner } from '../../runtime/worktreeCleaning';
import { Disposable, toDisposable } from '../util/lifecycle';
import type { Log } from '../util/log';
import type { StoreModel, StoreSession } from '../store/storeModel';
import { cleanedWords } from './cleanedWords';
import { COMMANDS } from '../commands/commandIds';
import { countOf } from '../../shared/countWords';
import { loopxSetting } from '../loopxSettings';

const SETTING = 'loopx.worktrees.cleanAfter';

/** The person's loopx.worktrees.cleanAfter as seconds; null when off; a string saying what is wrong otherwise. */
export function cleanAfterSeconds(value: unknown): number | null | string {
  if (value === undefined || value === null || value === '' || value === 'off') return null;
  try {
    const seconds = parseDuration(String(value), 'loopx.worktrees.cleanAfter');
    return seconds < 3600 ? 'loopx.worktrees.cleanAfter must be at least an hour (e.g. 7d)' : seconds;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * The window's share of worktree hygiene, when the person turned it on (loopx.worktrees.cleanAfter, e.g. `7d`; a
 * user setting only, never a repository's): the folders of landed, killed, shipped or abandoned todos idle that long
 * are removed by the same pass as `loopx run --clean-worktrees`, at its first chance and then at most hourly, in
 * trusted workspaces. It never forces: a folder with uncommitted changes is said once and left; branches stay. git
 * runs as non-blocking children, so the editor is never held up by it.
 */
export class WorktreeJanitor extends Disposable {
  private cleaner = new WorktreeCleaner();
  /** Folders already said to be kept, so an hourly pass does not say it again. */
  private readonly told = new Set<string>();
  private running: Promise<Cleaned | null> | undefined;
  /** Passes this window ran (tests read them). */
  readonly passes: Cleaned[] = [];

  constructor(
    private readonly session: StoreSession,
    private readonly model: StoreModel,
    private readonly log: Log,
    private readonly isTrusted: () => boolean = () => vscode.workspace.isTrusted,
  ) {
    super();
    this.register(model.onDidChange(() => void this.tick()));
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration(SETTING)) return;
        this.cleaner = new WorktreeCleaner(); // a changed age runs at once
        void this.tick();
      }),
    );
    const hourly = setInterval(() => void this.tick(), CLEAN_EVERY_MS);
    this.register(toDisposable(() => clearInterval(hourly)));
  }

  /** One pass when it is time (null otherwise, or when off, untrusted or without a store). */
  async tick(): Promise<Cleaned | null> {
    if (this.running) return this.running;
    const setting = cleanAfterSeconds(loopxSetting<string>(SETTING));
    const kernel = this.session.kernel;
    if (setting === null || !kernel || !this.isTrusted()) return null;
    if (typeof setting === 'string') {
      this.once(`invalid:${setting}`, () => this.log.warn(`worktree clean-up is off: ${setting}`));
      return null;
    }
    this.running = this.cleaner
      .maybeClean(kernel, setting)
      .then((cleaned) => cleaned && this.report(cleaned, loopxSetting<string>(SETTING) ?? ''))
      .catch((error: unknown) => {
        this.log.error('the worktree clean-up failed', error);
        return null;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private report(cleaned: Cleaned, age: string): Cleaned {
    this.passes.push(cleaned);
    for (const w of cleaned.removed) this.log.info(`worktree clean-up: removed ${w.path} (${w.why})`);
    for (const w of cleaned.kept)
      this.log.info(`worktree clean-up: kept ${w.path} (${w.why}; ${countOf(w.uncommitted, 'file')} not committed)`);
    const words = cleanedWords(cleaned, age);
    if (words.removed) {
      void vscode.window.showInformationMessage(words.removed);
      this.model.invalidate(true);
    }
    for (const kept of words.kept)
      this.once(`kept:${kept.path}`, () => {
        const show = 'Show Changes';
        void vscode.window.showWarningMessage(kept.text, ...(kept.todoId ? [show] : [])).then((picked) => {
          if (picked === show && kept.todoId) void vscode.commands.executeCommand(COMMANDS.showChanges, kept.todoId);
        });
      });
    return cleaned;
  }

  private once(key: string, say: () => void): void {
    if (this.told.has(key)) return;
    this.told.add(key);
    say();
  }
}

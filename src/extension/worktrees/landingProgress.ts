import * as vscode from 'vscode';
import { RefusedError } from '../../kernel/errors';
import type { LandingOptions } from '../../kernel/worktrees/landing';

type Step = Parameters<NonNullable<LandingOptions['onStep']>>[0];

const STEP_WORDS: Record<Step, string> = {
  checking: 'Checking the branch…',
  merging: 'Merging…',
  pushing: 'Pushing the branch to origin…',
  opening: 'Asking GitHub for the pull request…',
  removing: 'Removing the branch and its folder…',
};

/** Steps after which a cancel is no longer honoured (the kernel's LandingOptions says where it is safe). */
const PAST_CANCEL: ReadonlySet<Step> = new Set(['merging', 'opening', 'removing']);

/**
 * Runs a landing (merge, pull request, discard) with a notification that says what git is doing. The landing's git
 * runs as non-blocking children, so the editor stays responsive; Cancel is honoured where the kernel can stop without
 * leaving anything half-done, and then nothing is recorded. Undefined when the person cancelled.
 */
export async function withLandingProgress<T>(title: string, land: (options: LandingOptions) => Promise<T>): Promise<T | undefined> {
  const abort = new AbortController();
  let late = false;
  try {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `LoopX: ${title}`, cancellable: true },
      (progress, token) => {
        token.onCancellationRequested(() => {
          if (!late) abort.abort();
          else void vscode.window.showInformationMessage('LoopX: this step cannot be stopped safely any more; it finishes on its own.');
        });
        return land({
          signal: abort.signal,
          onStep: (step) => {
            late ||= PAST_CANCEL.has(step);
            progress.report({ message: STEP_WORDS[step] });
          },
        });
      },
    );
  } catch (error) {
    if (error instanceof RefusedError && error.code === 'landing_cancelled') return undefined;
    throw error;
  }
}

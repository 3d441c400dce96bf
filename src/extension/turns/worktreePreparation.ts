import * as vscode from 'vscode';
import type { Kernel } from '../../kernel/kernel';
import { LoopxError } from '../../kernel/errors';
import { setupNotRunWhy } from '../../kernel/worktrees/worktreeSetup';
import {
  type PrepareProgress,
  type PreparedTurn,
  type TurnStart,
  type TurnStartInput,
  prepareTurnStart,
  setupLogFile,
} from '../../kernel/turns/turns';

/**
 * Prepares a turn's worktree and runs its goal's setup command without blocking the extension host (git and the
 * setup are child processes; see prepareTurnStart). While something long runs, a notification names the todo and
 * what runs ("Setting up the worktree: running `npm ci`…"); cancelling it kills the setup and starts no turn.
 * A reused worktree that is set up already shows nothing.
 */
export async function prepareWithProgress(kernel: Kernel, input: TurnStartInput, unattended: boolean): Promise<PreparedTurn> {
  const abort = new AbortController();
  let report: vscode.Progress<{ message?: string }> | undefined;
  let latest = '';
  let close: (() => void) | undefined;
  let done = false;
  const onProgress = (p: PrepareProgress) => {
    latest = p.step === 'setup' ? `Setting up the worktree: running “${p.command ?? ''}”…` : 'Making its worktree…';
    if (report) return report.report({ message: latest });
    if (close) return; // the notification is being opened: it shows `latest`
    close = () => {};
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `LoopX: ${p.todoId} ${p.todoTitle}`, cancellable: true },
      (progress, token) => {
        report = progress;
        progress.report({ message: latest });
        token.onCancellationRequested(() => abort.abort());
        return new Promise<void>((resolve) => {
          close = resolve;
          if (done) resolve();
        });
      },
    );
  };
  try {
    return await prepareTurnStart(kernel, input, { signal: abort.signal, unattended, onProgress });
  } finally {
    done = true;
    close?.();
  }
}

/**
 * A setup that failed or was cancelled, said to the person: a sentence with a button to the setup's output. Nothing
 * is said for a cancel (the person asked for it) nor, when unattended, while a failed setup backs off (said once).
 * True when the error was one of these.
 */
export function tellSetupRefusal(error: unknown, unattended: boolean): error is LoopxError {
  if (!(error instanceof LoopxError) || (error.code !== 'setup_failed' && error.code !== 'setup_cancelled')) return false;
  const data = (error.data ?? {}) as { log?: string; backingOff?: boolean };
  if (error.code === 'setup_cancelled' || (unattended && data.backingOff)) return true;
  const sentence = (error.message.split('\n')[0] ?? '').replace(/\.? Its last output:$/, '');
  sayWithSetupLog('error', `LoopX: ${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`, data.log);
  return true;
}

/** A sentence about a worktree's setup, with Open Setup Log when there is a log to open. */
function sayWithSetupLog(level: 'error' | 'info', sentence: string, log: string | undefined): void {
  const open = 'Open Setup Log';
  const buttons = log ? [open] : [];
  const shown =
    level === 'error' ? vscode.window.showErrorMessage(sentence, ...buttons) : vscode.window.showInformationMessage(sentence, ...buttons);
  void shown.then((choice) => {
    if (choice === open && log) void vscode.commands.executeCommand('vscode.open', vscode.Uri.file(log));
  });
}

/**
 * A setup command not run in a turn's worktree (agents have worked on its branch: worktreeSetup.ts), said to the
 * person once per todo and command in this window, with a button to its log; the turn goes on.
 */
export function tellSetupNotRun(kernel: Kernel, started: TurnStart): void {
  const command = started.worktree?.setupNotRun;
  const todoId = started.turn.todoId;
  if (!command || !todoId || told.has(`${todoId}\0${command}`)) return;
  told.add(`${todoId}\0${command}`);
  sayWithSetupLog(
    'info',
    `LoopX: ${todoId}'s setup command (${command}) was not run in its worktree: ${setupNotRunWhy(todoId)}. Run it there yourself if you trust the change.`,
    setupLogFile(kernel, todoId),
  );
}
const told = new Set<string>();

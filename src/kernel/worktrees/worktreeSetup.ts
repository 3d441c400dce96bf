import type * as ChildProcess from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RefusedError } from '../errors';
import { cleanOutput } from '../run/runCommand';
import { requireText } from '../validate';
import { gitRaw } from './git';
import { TEXT_LIMITS } from '../../shared/textLimits';
import { backoffSeconds } from '../turns/backoff';
import { iso } from '../time';
import { type SetupFailure, failureFileFor, readSetupFailure } from './setupBackoff';
import { durationWords } from '../../shared/timeWords';

/** How long a setup command may run (an `npm ci` of a large project takes minutes, not hours). */
export const SETUP_LIMIT_MS = 10 * 60_000;

/** A setup command as a person gives it: one shell command line, e.g. `npm ci`. */
export function parseSetup(value: string): string {
  return requireText(value, 'worktree setup command', { max: TEXT_LIMITS.check });
}

export interface SetupInput {
  command: string;
  worktree: string;
  todoId: string;
  goalId: string;
  logFile: string;
  limitMs?: number;
  /** Aborting it stops the setup (its whole process group) and refuses the turn (`setup_cancelled`). */
  signal?: AbortSignal;
  /**
   * An unattended runner (`loopx run`, VS Code's auto-run, an agent's turn start) respects the back-off after a
   * failed setup: the same command is not run again in that worktree before it elapses. A person's turn start runs it.
   */
  respectBackoff?: boolean;
  nowMs?: number;
  /** Called when the command is about to run (not when the worktree is set up already): for progress. */
  onStart?: () => void;
  /**
   * An agent has worked on the todo's branch (a turn started on it: branchInUse, worktreeRows.ts). Its files are then the
   * agent's, and a setup would run them as the person, outside any sandbox (a package's install scripts, a build): the
   * command is not run there (only in a worktree made from the base), and its log says so.
   */
  agentsWorkedHere?: boolean;
}

/** The worktree's own git folder: the marker lives there, never in its files (a new worktree is set up afresh). */
function gitDirOf(worktree: string): string | null {
  const dir = gitRaw(worktree, ['rev-parse', '--absolute-git-dir']);
  return dir.status === 0 ? dir.stdout.trim() : null;
}

/**
 * Runs a goal's setup command in a todo's worktree, before the turn's host starts and before its write (no lock is
 * held): once per worktree and command (a marker in the worktree's git folder records the command that succeeded, so
 * a changed command runs again and a failed one is tried by the next turn, after its back-off when unattended). The
 * command is a person's (only a human channel sets it) and runs as it was written, through `sh -c` with an argument
 * array: nothing of loopx's is put into its line; the worktree is its cwd and `LOOPX_WORKTREE` names it. Output goes
 * to `logFile`. It runs as a non-blocking child in a process group of its own (POSIX), so the caller's event loop
 * (VS Code's extension host) keeps running, and the time limit or a cancel kills the whole group, not just `sh`.
 * A failure, the time limit or a cancel refuses the turn (`setup_failed`, `setup_cancelled`) with nothing claimed;
 * the worktree and its branch stay as they are.
 */
export async function runWorktreeSetup(input: SetupInput): Promise<{ ran: boolean; skipped?: boolean }> {
  const gitDir = gitDirOf(input.worktree);
  const marker = gitDir ? join(gitDir, 'loopx-setup-done') : null;
  // The failure record sits beside the log, in the store's folder: should-run's plan reads it without git.
  const failedFile = failureFileFor(input.logFile);
  if (marker && existsSync(marker) && readFileSync(marker, 'utf8') === input.command) return { ran: false };
  if (input.agentsWorkedHere) {
    startLog(
      input,
      `not run: ${setupNotRunWhy(input.todoId)} (install scripts, a build). It runs only in a worktree made from the ` +
        `base; run it yourself there if you trust the change.\n`,
    );
    return { ran: false, skipped: true };
  }
  const nowMs = input.nowMs ?? Date.now();
  const failed = readSetupFailure(failedFile);
  const previous = failed?.command === input.command ? failed : null; // a changed command starts afresh
  if (previous && input.respectBackoff && Date.parse(previous.retryAt) > nowMs)
    throw new RefusedError(
      'setup_failed',
      `the setup command of goal ${input.goalId} (${input.command}) failed ${previous.failures === 1 ? 'once' : `${previous.failures} times in a row`} in the worktree of ${input.todoId}; it is not run again before ${previous.retryAt}, and the turn did not start`,
      `its output is in ${input.logFile}. A person may start the turn by hand to run it now, or change the command: loopx goal set-worktree ${input.goalId} --setup`,
      { worktree: input.worktree, log: input.logFile, retryAt: previous.retryAt, failures: previous.failures, backingOff: true },
    );
  const limitMs = input.limitMs ?? SETUP_LIMIT_MS;
  startLog(input);
  input.onStart?.();
  const outcome = await runInGroup(input, limitMs);
  const output = cleanOutput(readFileSync(input.logFile, 'utf8'));
  if (outcome.status === 0 && !outcome.error && !outcome.timedOut && !outcome.cancelled) {
    if (marker) writeFileSync(marker, input.command);
    rmSync(failedFile, { force: true });
    return { ran: true };
  }
  if (outcome.cancelled)
    throw new RefusedError(
      'setup_cancelled',
      `the setup of ${input.todoId}'s worktree (${input.command}) was cancelled; the turn did not start`,
      `what it printed is in ${input.logFile}; the next turn runs it again`,
      { worktree: input.worktree, log: input.logFile },
    );
  const failures = (previous?.failures ?? 0) + 1;
  const retryAt = iso(nowMs + backoffSeconds(failures) * 1000);
  writeFileSync(failedFile, JSON.stringify({ command: input.command, failures, retryAt } satisfies SetupFailure));
  const why = outcome.timedOut
    ? `did not finish within ${durationWords(limitMs)} and was stopped`
    : outcome.error
      ? `could not start: ${outcome.error.message}`
      : outcome.status === 127
        ? 'failed: command not found (the shell exited 127)'
        : `failed with exit code ${outcome.status ?? outcome.signal ?? 'unknown'}`;
  const tail = output.trim().split('\n').slice(2).slice(-5).join('\n'); // after the command and folder lines
  throw new RefusedError(
    'setup_failed',
    `the setup command of goal ${input.goalId} (${input.command}) ${why} in the worktree of ${input.todoId}; the turn did not start${tail ? `. Its last output:\n${tail}` : ''}`,
    `its whole output is in ${input.logFile}; the worktree and its branch are kept. The next turn runs the setup again (loopx run waits until ${retryAt}). A person changes the command with loopx goal set-worktree ${input.goalId} --setup`,
    { worktree: input.worktree, log: input.logFile, exitCode: outcome.status, timedOut: outcome.timedOut, failures, retryAt },
  );
}

/**
 * Why a setup command is not run on a todo's branch an agent has worked on: one sentence for the setup's log, `loopx
 * run`'s line and VS Code's message.
 */
export function setupNotRunWhy(todoId: string): string {
  return `agents have worked on ${todoId}'s branch, and the setup would run their files as you`;
}

/** The setup's log, begun afresh: the command and where it runs (the first two lines), and what loopx says of it. */
function startLog(input: SetupInput, said = ''): void {
  mkdirSync(join(input.logFile, '..'), { recursive: true });
  writeFileSync(input.logFile, `$ ${input.command}\n(in ${input.worktree})\n${said}`);
}

interface SetupOutcome {
  status: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
  timedOut: boolean;
  cancelled: boolean;
}

/**
 * `sh -c command` as the leader of a new process group (detached), its output straight into the log file (not
 * through pipes: a process the command left running would hold a pipe open). At the limit or on cancel the whole
 * group gets SIGKILL: `npm ci`'s children and anything the command started in the background go with `sh`. On
 * Windows there are no process groups: only the shell itself is killed (turns need a POSIX shell there anyway).
 */
function runInGroup(input: SetupInput, limitMs: number): Promise<SetupOutcome> {
  const log = openSync(input.logFile, 'a');
  return new Promise<SetupOutcome>((resolve) => {
    let timedOut = false;
    let cancelled = false;
    const { spawn } = process.getBuiltinModule('node:child_process') as typeof ChildProcess;
    const child = spawn('sh', ['-c', input.command], {
      cwd: input.worktree,
      detached: process.platform !== 'win32',
      env: { ...process.env, LOOPX_WORKTREE: input.worktree, CI: process.env.CI ?? '1' },
      stdio: ['ignore', log, log],
    });
    const killGroup = () => {
      try {
        if (child.pid && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, limitMs);
    const onAbort = () => {
      cancelled = true;
      killGroup();
    };
    if (input.signal?.aborted) onAbort();
    else input.signal?.addEventListener('abort', onAbort, { once: true });
    let finished = false;
    const done = (outcome: Omit<SetupOutcome, 'timedOut' | 'cancelled'>) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      input.signal?.removeEventListener('abort', onAbort);
      closeSync(log);
      // A timed-out or cancelled setup leaves nothing behind; a finished one's background processes are its own.
      if (timedOut || cancelled) killGroup();
      resolve({ ...outcome, timedOut, cancelled });
    };
    child.once('error', (error) => done({ status: null, signal: null, error }));
    child.once('exit', (status, signal) => done({ status, signal }));
  });
}

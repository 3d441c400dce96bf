import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RefusedError } from '../errors';
import { cleanOutput } from '../run/runCommand';
import { requireText } from '../validate';
import { gitRaw } from './git';
import { TEXT_LIMITS } from '../../shared/textLimits';

/** How long a setup command may run (an `npm ci` of a large project takes minutes, not hours). */
export const SETUP_LIMIT_MS = 10 * 60_000;

/** A setup command as a person gives it: one shell command line, e.g. `npm ci`. */
export function parseSetup(value: string): string {
  return requireText(value, 'worktree setup command', { max: TEXT_LIMITS.check });
}

/** The marker of a worktree's finished setup, in its own git folder: never in the working tree, never committed. */
function markerOf(worktree: string): string | null {
  const dir = gitRaw(worktree, ['rev-parse', '--absolute-git-dir']);
  return dir.status === 0 ? join(dir.stdout.trim(), 'loopx-setup-done') : null;
}

/**
 * Runs a goal's setup command in a todo's worktree, before the turn's host starts and before its write (no lock is
 * held): once per worktree and command (a marker in the worktree's git folder records the command that succeeded, so
 * a changed command runs again and a failed one is tried by the next turn). The command is a person's (only a
 * human channel sets it) and runs as it was written, through `sh -c` with an argument array: nothing of loopx's is
 * put into its line; the worktree is its cwd and `LOOPX_WORKTREE` names it. Output goes to `logFile`. A failure or
 * the time limit refuses the turn (`setup_failed`) with nothing claimed; the worktree and its branch stay as they are.
 */
export function runWorktreeSetup(input: {
  command: string;
  worktree: string;
  todoId: string;
  goalId: string;
  logFile: string;
  limitMs?: number;
}): { ran: boolean } {
  const marker = markerOf(input.worktree);
  if (marker && existsSync(marker) && readFileSync(marker, 'utf8') === input.command) return { ran: false };
  const limitMs = input.limitMs ?? SETUP_LIMIT_MS;
  mkdirSync(join(input.logFile, '..'), { recursive: true });
  writeFileSync(input.logFile, `$ ${input.command}\n(in ${input.worktree})\n`);
  // Output goes straight to the log file, not through pipes: a process the command left running (a stray watcher)
  // would hold a pipe open and keep the turn waiting past the time limit.
  const log = openSync(input.logFile, 'a');
  let result: ReturnType<typeof spawnSync>;
  try {
    result = spawnSync('sh', ['-c', input.command], {
      cwd: input.worktree,
      timeout: limitMs,
      killSignal: 'SIGKILL',
      env: { ...process.env, LOOPX_WORKTREE: input.worktree, CI: process.env.CI ?? '1' },
      stdio: ['ignore', log, log],
    });
  } finally {
    closeSync(log);
  }
  const output = cleanOutput(readFileSync(input.logFile, 'utf8'));
  const timedOut = (result.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT' || result.signal === 'SIGKILL';
  if (result.status === 0 && !result.error) {
    if (marker) writeFileSync(marker, input.command);
    return { ran: true };
  }
  const why = timedOut
    ? `did not finish within ${limitMs >= 60_000 ? `${Math.round(limitMs / 60_000)} min` : `${Math.ceil(limitMs / 1000)} s`} and was stopped`
    : result.error
      ? `could not start: ${result.error.message}`
      : result.status === 127
        ? 'failed: command not found (the shell exited 127)'
        : `failed with exit code ${result.status ?? result.signal ?? 'unknown'}`;
  const tail = output.trim().split('\n').slice(2).slice(-5).join('\n'); // after the command and folder lines
  throw new RefusedError(
    'setup_failed',
    `the setup command of goal ${input.goalId} (${input.command}) ${why} in the worktree of ${input.todoId}; the turn did not start${tail ? `. Its last output:\n${tail}` : ''}`,
    `its whole output is in ${input.logFile}; the worktree and its branch are kept, and the next turn runs the setup again. A person changes the command with loopx goal set-worktree ${input.goalId} --setup`,
    { worktree: input.worktree, log: input.logFile, exitCode: result.status, timedOut },
  );
}

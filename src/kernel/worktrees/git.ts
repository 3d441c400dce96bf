import type * as ChildProcess from 'node:child_process';

/** node:child_process (and the streams and sockets it loads), fetched when git runs: `todo show` imports this file. */
const childProcess = () => process.getBuiltinModule('node:child_process') as typeof ChildProcess;
import { RefusedError } from '../errors';
import { withPersonsPath } from '../personsPath';

/** What one git call gave back. */
export interface GitResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** git's own words for a failure, trimmed to what a person reads. */
export function gitWords(result: GitResult): string {
  return (result.stderr.trim() || result.stdout.trim() || `git exited with ${result.status}`).split('\n').slice(0, 6).join('\n');
}

/**
 * Every git loopx runs runs no hooks. A hook is code from where agents write: a `core.hooksPath` inside the workspace
 * (husky's `.husky/_`, a `.githooks` folder), or a hook in `.git/hooks` that runs what the workspace's files say
 * (lefthook's `lefthook.yml`, pre-commit's `.pre-commit-config.yaml`, a script beside the code). loopx's git calls run
 * unattended (a worktree made at a turn's start, a change committed once its review approves it, an auto-land) or for a
 * person who asked for a merge or a push, not for the workspace's code: a hook run there would be an agent's code run
 * as the person, outside its sandbox. Nor the file-system monitor git asks before a status (`core.fsmonitor`: a
 * program, named in a config that may include a file of the workspace). Given as `-c`, which git passes on to the git
 * processes it starts itself (GIT_CONFIG_PARAMETERS); git looks for each hook in a folder that cannot exist.
 */
export const NO_HOOKS: readonly string[] = [
  '-c',
  `core.hooksPath=${process.platform === 'win32' ? 'NUL' : '/dev/null'}`,
  '-c',
  'core.fsmonitor=false',
];

/** The options every git call runs with: nothing from the user's git configuration may prompt (no editor, pager, credentials). */
function gitOptions(cwd: string, options: { timeoutMs?: number; env?: NodeJS.ProcessEnv }) {
  return {
    cwd,
    encoding: 'utf8' as const,
    timeout: options.timeoutMs ?? 60_000,
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, ...options.env, GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'true', GIT_PAGER: 'cat', LC_ALL: 'C' },
  };
}

/** A git that could not run (not installed, killed at its time limit) is a `git_failed` refusal in words. */
function gitNotRun(args: readonly string[], error: Error, program = 'git'): RefusedError {
  const code = (error as NodeJS.ErrnoException).code;
  return new RefusedError(
    'git_failed',
    code === 'ENOENT'
      ? `${program} is not installed (or not on PATH outside a loopx workspace, where agents could have put it)`
      : `${program} ${args[0] ?? ''} did not finish: ${error.message}`,
    code === 'ENOENT' ? `install ${program}: worktrees need it` : undefined,
  );
}

/** Runs git in `cwd` with an argument array (never a shell line: branch names and paths reach git as they are) and a time limit. */
export function gitRaw(cwd: string, args: readonly string[], options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): GitResult {
  const gitOpts = gitOptions(cwd, options);
  // The person's git, never one an agent put on PATH inside a workspace (personsPath.ts); runAsync does the same.
  const result = childProcess().spawnSync('git', [...NO_HOOKS, ...args], { ...gitOpts, env: withPersonsPath(gitOpts.env) });
  if (result.error) throw gitNotRun(args, result.error);
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/**
 * gitRaw as a non-blocking child: the caller's event loop (VS Code's extension host) runs on while git works. git runs
 * in a process group of its own (POSIX), so the time limit or `signal` stops all of it (a push's ssh and its hooks
 * too); an abort rejects with `landing_cancelled`.
 */
export function gitRawAsync(
  cwd: string,
  args: readonly string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {},
): Promise<GitResult> {
  return runAsync('git', args, gitOptions(cwd, options), options.signal, NO_HOOKS);
}

/**
 * Runs a program (git, gh) as a non-blocking child with an argument array, its output collected; a non-zero exit is
 * its answer, not starting or being stopped (the time limit, `signal`) a refusal. Exported for gh.
 */
export function runAsync(
  program: string,
  args: readonly string[],
  options: { cwd: string; timeout: number; env: NodeJS.ProcessEnv },
  signal?: AbortSignal,
  /** Words before `args` on the command line only (git's NO_HOOKS): a failure is told with `args`. */
  before: readonly string[] = [],
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelled(program, args));
    // git and gh: the person's, never one an agent put on PATH inside a workspace (personsPath.ts).
    const child = childProcess().spawn(program, [...before, ...args], {
      cwd: options.cwd,
      env: withPersonsPath(options.env),
      detached: process.platform !== 'win32',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let stopped: 'timeout' | 'cancel' | null = null;
    const stop = (why: 'timeout' | 'cancel') => {
      stopped ??= why;
      try {
        if (child.pid && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => stop('timeout'), options.timeout);
    const onAbort = () => stop('cancel');
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    child.once('error', (error) => {
      settle();
      reject(gitNotRun(args, error, program));
    });
    child.once('close', (status) => {
      settle();
      if (stopped === 'cancel') reject(cancelled(program, args));
      else if (stopped === 'timeout') reject(gitNotRun(args, new Error(`stopped after ${Math.round(options.timeout / 1000)} s`), program));
      else resolve({ status: status ?? -1, stdout, stderr });
    });
  });
}

function cancelled(program: string, args: readonly string[]): RefusedError {
  return new RefusedError('landing_cancelled', `${program} ${args[0] ?? ''} was cancelled before it finished; nothing was recorded`);
}

/** gitAsync: git's trimmed output, or a `git_failed` refusal in git's own words. */
export async function gitAsync(cwd: string, args: readonly string[], options: { timeoutMs?: number; signal?: AbortSignal } = {}) {
  const result = await gitRawAsync(cwd, args, options);
  if (result.status !== 0) throw new RefusedError('git_failed', `git ${args[0] ?? ''} failed: ${gitWords(result)}`);
  return result.stdout.trim();
}

/** Runs git and returns its trimmed output; a failure is a `git_failed` refusal in git's own words. */
export function git(cwd: string, args: readonly string[], options: { timeoutMs?: number } = {}): string {
  const result = gitRaw(cwd, args, options);
  if (result.status !== 0) throw new RefusedError('git_failed', `git ${args[0] ?? ''} failed: ${gitWords(result)}`);
  return result.stdout.trim();
}

/** True when `cwd` is inside a git working tree. */
export function isGitRepo(cwd: string): boolean {
  const result = gitRaw(cwd, ['rev-parse', '--is-inside-work-tree']);
  return result.status === 0 && result.stdout.trim() === 'true';
}

/** The commit `ref` names, or null when it names none. */
export function resolveCommit(cwd: string, ref: string): string | null {
  return commitOf(gitRaw(cwd, resolveArgs(ref)));
}

/** resolveCommit without blocking the caller's event loop. */
export async function resolveCommitAsync(cwd: string, ref: string): Promise<string | null> {
  return commitOf(await gitRawAsync(cwd, resolveArgs(ref)));
}

const resolveArgs = (ref: string) => ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`];
const commitOf = (result: GitResult) => (result.status === 0 ? result.stdout.trim() : null);

/** A branch name git accepts (`git check-ref-format --branch`). */
export function validBranchName(cwd: string, name: string): boolean {
  return !name.startsWith('-') && gitRaw(cwd, ['check-ref-format', '--branch', name]).status === 0;
}

export interface WorktreeEntry {
  path: string;
  head: string | null;
  /** The branch checked out there (short name), or null (detached). */
  branch: string | null;
}

/** `git worktree list --porcelain`, parsed: the main working tree first. */
export function listGitWorktrees(cwd: string): WorktreeEntry[] {
  return parseWorktreeList(git(cwd, ['worktree', 'list', '--porcelain']));
}

/** listGitWorktrees without blocking the caller's event loop. */
export async function listGitWorktreesAsync(cwd: string): Promise<WorktreeEntry[]> {
  return parseWorktreeList(await gitAsync(cwd, ['worktree', 'list', '--porcelain']));
}

function parseWorktreeList(out: string): WorktreeEntry[] {
  const entries: WorktreeEntry[] = [];
  for (const block of out.split('\n\n')) {
    const lines = block.split('\n');
    const path = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    if (!path) continue;
    const head = lines.find((l) => l.startsWith('HEAD '))?.slice(5) ?? null;
    const ref = lines.find((l) => l.startsWith('branch '))?.slice(7) ?? null;
    entries.push({ path, head, branch: ref ? ref.replace(/^refs\/heads\//, '') : null });
  }
  return entries;
}

/** The files with uncommitted changes (tracked or new) in a working tree, as `git status --porcelain` names them. */
export function dirtyFiles(cwd: string): string[] {
  return porcelainFiles(gitRaw(cwd, DIRTY_ARGS));
}

/** dirtyFiles without blocking the caller's event loop. */
export async function dirtyFilesAsync(cwd: string): Promise<string[]> {
  return porcelainFiles(await gitRawAsync(cwd, DIRTY_ARGS));
}

const DIRTY_ARGS = ['status', '--porcelain', '--untracked-files=all'];

/** The files `git status --porcelain` names (a failure is a `git_failed` refusal). */
export function porcelainFiles(result: GitResult): string[] {
  if (result.status !== 0) throw new RefusedError('git_failed', `git status failed: ${gitWords(result)}`);
  return result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.slice(3));
}

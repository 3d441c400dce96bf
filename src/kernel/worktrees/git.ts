import { execFile, spawnSync } from 'node:child_process';
import { RefusedError } from '../errors';

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
function gitNotRun(args: readonly string[], error: Error): RefusedError {
  const code = (error as NodeJS.ErrnoException).code;
  return new RefusedError(
    'git_failed',
    code === 'ENOENT' ? 'git is not installed (or not on PATH)' : `git ${args[0] ?? ''} did not finish: ${error.message}`,
    code === 'ENOENT' ? 'install git: worktrees need it' : undefined,
  );
}

/** Runs git in `cwd` with an argument array (never a shell line: branch names and paths reach git as they are) and a time limit. */
export function gitRaw(cwd: string, args: readonly string[], options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): GitResult {
  const result = spawnSync('git', args, gitOptions(cwd, options));
  if (result.error) throw gitNotRun(args, result.error);
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** gitRaw as a non-blocking child: the caller's event loop (VS Code's extension host) runs on while git works. */
export function gitRawAsync(cwd: string, args: readonly string[], options: { timeoutMs?: number } = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    execFile('git', args, gitOptions(cwd, options), (error, stdout, stderr) => {
      const failed = error as (Error & { code?: number | string; killed?: boolean }) | null;
      // A non-zero exit is git's answer; not starting, or being killed at the limit, is a refusal.
      if (failed && (typeof failed.code !== 'number' || failed.killed)) reject(gitNotRun(args, failed));
      else resolve({ status: failed ? (failed.code as number) : 0, stdout, stderr });
    });
  });
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
  const result = gitRaw(cwd, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  return result.status === 0 ? result.stdout.trim() : null;
}

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
  const out = git(cwd, ['worktree', 'list', '--porcelain']);
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
  const result = gitRaw(cwd, ['status', '--porcelain', '--untracked-files=all']);
  if (result.status !== 0) throw new RefusedError('git_failed', `git status failed: ${gitWords(result)}`);
  return result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.slice(3));
}

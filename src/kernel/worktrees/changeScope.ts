import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRaw, resolveCommit } from './git';
import type { WorktreeRow } from './worktreeRows';
import { STORE_DIR } from '../kernel';
import { AGENT_READ_ONLY } from '../agentReach';
import { nodeCrypto } from '../nodeCrypto';

/**
 * Exactly what a review judges, never "the current changes": the commit the change starts from (a worktree's base;
 * unknown without worktrees), the commit it ends at, and a hash of everything beyond that commit not yet committed
 * (the tracked files' diff, and each untracked file's content), with the files the change touches. Read from git
 * before the store's write (git never runs under the write lock). A verdict is taken only while the scope is still
 * the one submitted: a reviewer that edited the change, or an implementer that went on after submitting, moves it.
 */
export interface ReviewScope {
  base: string | null;
  head: string | null;
  diffHash: string | null;
  files: string[];
}

const NO_SCOPE: ReviewScope = { base: null, head: null, diffHash: null, files: [] };
const GIT_MS = 30_000;
/**
 * What is never part of a change, ignored by git or not: what no agent may write (AGENT_READ_ONLY: loopx's folder, where
 * a review turn's prompt is written, and the hosts' config, whose empty mount points a sandboxed turn makes there).
 */
const OUTSIDE_STORE = ['--', '.', ...[STORE_DIR, ...AGENT_READ_ONLY].map((p) => `:(exclude)${p}`)];

/** The scope of a todo's change: in its worktree when it has one, else in the workspace's own tree. */
export function readReviewScope(root: string, worktree: WorktreeRow | undefined): ReviewScope {
  const inWorktree = onDisk(worktree);
  const cwd = inWorktree ? inWorktree.path : root;
  const head = inWorktree ? resolveCommit(root, `refs/heads/${inWorktree.branch}`) : resolveCommit(cwd, 'HEAD');
  if (head === null) return NO_SCOPE; // not a git repository, or nothing committed yet
  const base = inWorktree ? inWorktree.baseCommit : null;
  const committed =
    base === null ? [] : lines(gitRaw(cwd, ['diff', '--name-only', `${base}..${head}`, ...OUTSIDE_STORE], { timeoutMs: GIT_MS }).stdout);
  const diff = gitRaw(cwd, ['diff', '--binary', 'HEAD', ...OUTSIDE_STORE], { timeoutMs: GIT_MS }).stdout;
  const changed = lines(gitRaw(cwd, ['diff', '--name-only', 'HEAD', ...OUTSIDE_STORE], { timeoutMs: GIT_MS }).stdout);
  const untracked = lines(gitRaw(cwd, ['ls-files', '--others', '--exclude-standard', ...OUTSIDE_STORE], { timeoutMs: GIT_MS }).stdout);
  // node:crypto only once git has been run: a ship on a goal without review never loads it (nodeCrypto.ts).
  const hash = nodeCrypto().createHash('sha256').update(head).update('\0').update(diff);
  for (const file of untracked)
    hash
      .update('\0')
      .update(file)
      .update('\0')
      .update(contentOf(join(cwd, file)));
  return { base, head, diffHash: hash.digest('hex'), files: [...new Set([...committed, ...changed, ...untracked])].sort() };
}

/** Whether two scopes are the same change (the files follow from the commits and the hash). */
export function sameScope(a: ReviewScope, b: ReviewScope): boolean {
  return a.base === b.base && a.head === b.head && a.diffHash === b.diffHash;
}

/** A scope in words: "abc1234..def5678 (+ uncommitted changes)". */
export function scopeWords(scope: ReviewScope): string {
  if (scope.head === null) return 'no git history (the files as they are)';
  const short = (sha: string) => sha.slice(0, 7);
  return `${scope.base ? `${short(scope.base)}..` : 'at '}${short(scope.head)}, ${scope.files.length} file(s)`;
}

/** What a scope holds, read from git: its commits (newest first, at most 30) and its diff, cut at `limit` characters. */
export interface ScopeChange {
  commits: string[];
  diff: { text: string; truncated: boolean; bytes: number };
  /** Where the change is: the worktree's folder, or the workspace. */
  folder: string;
}

/** The commits and diff of a submitted scope: from its base (a worktree's) or the last commit, to the files now. */
export function readScopeChange(root: string, worktree: WorktreeRow | undefined, scope: ReviewScope | null, limit: number): ScopeChange {
  const folder = onDisk(worktree)?.path ?? root;
  if (!scope?.head) return { commits: [], diff: { text: '', truncated: false, bytes: 0 }, folder };
  try {
    return readChange(folder, scope, limit);
  } catch (error) {
    // git could not run here (a sandbox that lets no program start, git missing): the brief says so, the rest stands.
    const text = `(the diff could not be read here: ${(error as Error).message}; read it with git in ${folder})`;
    return { commits: [], diff: { text, truncated: false, bytes: text.length }, folder };
  }
}

function readChange(folder: string, scope: ReviewScope, limit: number): ScopeChange {
  const tracked = gitRaw(folder, ['diff', '--stat', '--patch', scope.base ?? 'HEAD', ...OUTSIDE_STORE], { timeoutMs: GIT_MS }).stdout;
  // New files git does not track yet are part of the change too: each as a diff from nothing.
  const untracked = lines(
    gitRaw(folder, ['ls-files', '--others', '--exclude-standard', ...OUTSIDE_STORE], { timeoutMs: GIT_MS }).stdout,
  ).slice(0, 200);
  const added = untracked.map((file) => gitRaw(folder, ['diff', '--no-index', '--', '/dev/null', file], { timeoutMs: GIT_MS }).stdout);
  const text = [tracked, ...added].filter(Boolean).join('\n');
  const log = scope.base
    ? gitRaw(folder, ['log', '--format=%h %s', '-n', '30', `${scope.base}..${scope.head}`], { timeoutMs: GIT_MS }).stdout
    : '';
  return { commits: lines(log), diff: { text: text.slice(0, limit), truncated: text.length > limit, bytes: text.length }, folder };
}

/** The todo's worktree while its folder is there (a change in it is read there), else null: the workspace's. */
function onDisk(worktree: WorktreeRow | undefined): WorktreeRow | null {
  return worktree !== undefined && worktree.removedAt === null && existsSync(worktree.path) ? worktree : null;
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() !== '');
}

function contentOf(path: string): Buffer | string {
  try {
    return readFileSync(path);
  } catch {
    return ''; // a folder, or gone since git listed it: its name alone is hashed
  }
}

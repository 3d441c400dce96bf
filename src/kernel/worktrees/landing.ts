import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Kernel } from '../kernel';
import type { Actor } from '../events/eventTypes';
import { IllegalTransitionError, NotFoundError, RefusedError } from '../errors';
import { KERNEL, requireHumanChannel } from '../authority';
import {
  dirtyFilesAsync,
  gitAsync,
  gitRawAsync,
  gitWords,
  listGitWorktreesAsync,
  porcelainFiles,
  resolveCommitAsync,
  runAsync,
} from './git';
import { type WorktreeRow, findWorktree, worktreesDir } from './worktreeRows';
import { recordRemoved } from './hygiene';
import { getTodo } from '../todos/todoQueries';

/** The todo's worktree, when a person may land it now: it has one, it is not landed, and no turn works in it. */
function landable(kernel: Kernel, todoId: string, verb: string): WorktreeRow {
  const row = kernel.read((db) => findWorktree(db, todoId));
  const todo = kernel.read((db) => getTodo(db, todoId));
  if (!row) throw new NotFoundError('worktree of todo', todoId, 'only todos of goals with worktrees on have one: loopx worktree list');
  if (row.status === 'merged' || row.status === 'discarded')
    throw new IllegalTransitionError(`the branch of ${todoId} was already ${row.status}; there is nothing to ${verb}`);
  if (todo.status === 'claimed')
    throw new IllegalTransitionError(
      `${todoId} is claimed by ${todo.owner ?? 'an agent'}, who may be writing on ${row.branch} right now`,
      'wait for its turn to end (or release the claim), then land it',
    );
  // Landing a change in review would skip its reviewer: a person approves it first (or sends it back).
  if (todo.status === 'in_review')
    throw new IllegalTransitionError(
      `${todoId}'s change is in review; it lands once approved`,
      `approve it first (loopx review approve ${todoId}), or send it back (loopx review request-changes ${todoId})`,
    );
  return row;
}

function refuseDirty(where: string, files: string[], hint: string): void {
  if (files.length === 0) return;
  const shown = files.slice(0, 10).join(', ') + (files.length > 10 ? ` and ${files.length - 10} more` : '');
  throw new RefusedError('worktree_dirty', `${where} has uncommitted changes: ${shown}`, hint, { files });
}

function top(kernel: Kernel): Promise<string> {
  return gitAsync(kernel.root, ['rev-parse', '--show-toplevel']);
}

/**
 * What a person watching a landing is told, and how they may stop it. Every git and gh call is a non-blocking child
 * (VS Code's extension host keeps serving the editor), and the kernel's write comes after them, in one transaction.
 * `signal` cancels only where nothing is left half-done: before a merge or a discard starts changing branches, and
 * during a pull request's push (git's whole process group is killed; nothing is recorded). Once git changes a branch,
 * or gh has been asked for the pull request, the landing runs to its end and is recorded.
 */
export interface LandingOptions {
  signal?: AbortSignal;
  onStep?: (step: 'checking' | 'merging' | 'pushing' | 'opening' | 'removing') => void;
  /**
   * A merge the kernel makes under a person's standing decision (the event's seq; autoLand.ts checked it stands)
   * instead of a person's decision now: recorded as the kernel's, naming the decision.
   */
  standing?: number;
}

/** Past this point the landing cannot be cancelled: a person's cancel that came before it is honoured here. */
function lastChanceToCancel(options: LandingOptions, sentence: string): void {
  if (options.signal?.aborted) throw new RefusedError('landing_cancelled', sentence);
}

/**
 * Merges a todo's branch into its base, as a person decided: a fast-forward (`ff`) or a merge commit (`merge`). It
 * merges where the base is checked out (the main folder, usually), or in a scratch worktree when it is checked out
 * nowhere. A conflict aborts the merge: the base is as it was, the branch is kept, and the files are named.
 */
export async function mergeWorktree(
  kernel: Kernel,
  todoId: string,
  mode: 'ff' | 'merge',
  options: LandingOptions = {},
): Promise<WorktreeRow> {
  const human = options.standing === undefined ? requireHuman(kernel, `merging the branch of ${todoId}`) : KERNEL;
  const row = landable(kernel, todoId, 'merge');
  options.onStep?.('checking');
  const repo = await top(kernel);
  const head = await resolveCommitAsync(repo, `refs/heads/${row.branch}`);
  if (!head) throw new RefusedError('git_failed', `branch ${row.branch} no longer exists`, 'discard the worktree: loopx worktree discard');
  if (existsSync(row.path) && row.removedAt === null)
    refuseDirty(
      `the worktree of ${todoId} (${row.path})`,
      await dirtyFilesAsync(row.path),
      'commit them on the branch there, or discard them first',
    );
  const baseHead = await resolveCommitAsync(repo, `refs/heads/${row.base}`);
  if (baseHead && (await isAncestor(repo, head, baseHead))) {
    if (head === row.baseCommit || (await isAncestor(repo, head, row.baseCommit)))
      throw new IllegalTransitionError(`${row.branch} has nothing that ${row.base} does not have already`, 'discard it instead');
    // Its commits are in the base already: git merged it and the merge that asked was stopped before its write (a
    // kill -9, a crash), or a person merged it by hand. This person's merge records that landing, as it is in git.
    const landed = await howItLanded(repo, head, baseHead);
    return recordMerged(kernel, human, row, { head, commit: landed.commit, mode: landed.mode, standing: options.standing });
  }
  const home = (await listGitWorktreesAsync(repo)).find((w) => w.branch === row.base)?.path;
  if (home)
    refuseDirty(
      `${home}, where ${row.base} is checked out,`,
      await tracked(home),
      `commit or stash them there first; ${row.branch} is kept`,
    );
  lastChanceToCancel(options, `merging ${row.branch} was cancelled before anything changed; nothing was recorded`);
  options.onStep?.('merging');
  let scratch: string | null = null;
  if (!home) mkdirSync(worktreesDir(repo), { recursive: true });
  const dir = home ?? (scratch = mkdtempSync(join(worktreesDir(repo), '.merge-')));
  try {
    if (scratch) await gitAsync(repo, ['worktree', 'add', scratch, row.base]);
    const message = `Merge ${row.branch}: ${kernel.read((db) => getTodo(db, todoId)).title} (loopx ${todoId})`;
    const args = mode === 'ff' ? ['merge', '--ff-only', row.branch] : ['merge', '--no-ff', '--no-edit', '-m', message, row.branch];
    const merged = await gitRawAsync(dir, args);
    if (merged.status !== 0) {
      const unmerged = await gitRawAsync(dir, ['diff', '--name-only', '--diff-filter=U']);
      const conflicts = unmerged.stdout.split('\n').filter(Boolean);
      // --absolute-git-dir: a relative ".git" would be looked up from this process's cwd (VS Code's is elsewhere).
      if (existsSync(join(await gitAsync(dir, ['rev-parse', '--absolute-git-dir']), 'MERGE_HEAD')))
        await gitRawAsync(dir, ['merge', '--abort']);
      if (mode === 'ff')
        throw new RefusedError(
          'merge_conflict',
          `${row.base} has moved on since ${row.branch} started: it cannot be fast-forwarded`,
          'merge it with a merge commit instead (--merge-commit); nothing was changed',
        );
      throw new RefusedError(
        'merge_conflict',
        conflicts.length
          ? `${row.branch} conflicts with ${row.base} in ${conflicts.join(', ')}: the merge was undone, nothing was changed and the branch is kept`
          : `${row.branch} could not be merged into ${row.base}: ${gitWords(merged)}; nothing was changed and the branch is kept`,
        `resolve it on the branch (in ${row.path}) or merge by hand`,
        { conflicts },
      );
    }
    const commit = await gitAsync(dir, ['rev-parse', 'HEAD']);
    return recordMerged(kernel, human, row, { head, commit, mode, standing: options.standing });
  } finally {
    if (scratch) {
      await gitRawAsync(repo, ['worktree', 'remove', '--force', scratch]).catch(() => undefined);
      rmSync(scratch, { recursive: true, force: true });
    }
  }
}

function recordMerged(
  kernel: Kernel,
  by: Actor,
  row: WorktreeRow,
  merge: { head: string; commit: string; mode: 'ff' | 'merge'; standing: number | undefined },
): WorktreeRow {
  const { head, commit, mode, standing } = merge;
  return kernel.as(by).write((tx) => {
    tx.emit({
      kind: 'worktree.landed',
      goalId: row.goalId,
      todoId: row.todoId,
      data: { how: 'merged', branch: row.branch, head, commit, mode, url: null, ...(standing !== undefined ? { standing } : {}) },
    });
    return findWorktree(tx.db, row.todoId) as WorktreeRow;
  });
}

async function isAncestor(repo: string, commit: string, of: string): Promise<boolean> {
  return (await gitRawAsync(repo, ['merge-base', '--is-ancestor', commit, of])).status === 0;
}

/**
 * How a branch head that the base contains got there: a merge commit that has it as a second parent, or else a
 * fast-forward (the base was moved onto it, whatever came after).
 */
async function howItLanded(repo: string, head: string, baseHead: string): Promise<{ commit: string; mode: 'ff' | 'merge' }> {
  const merges = await gitAsync(repo, ['rev-list', '--reverse', '--ancestry-path', '--merges', '--format=%H %P', `${head}..${baseHead}`]);
  for (const line of merges.split('\n')) {
    if (line.startsWith('commit ')) continue; // rev-list's own header line before each formatted one
    const [commit, , ...others] = line.trim().split(' ');
    if (commit && others.includes(head)) return { commit, mode: 'merge' };
  }
  return { commit: head, mode: 'ff' };
}

/** Tracked files with uncommitted changes (the store's own untracked folder is no obstacle to a merge). */
async function tracked(dir: string): Promise<string[]> {
  return porcelainFiles(await gitRawAsync(dir, ['status', '--porcelain', '--untracked-files=no']));
}

function requireHuman(kernel: Kernel, action: string) {
  const actor = kernel.requireActor();
  requireHumanChannel(actor, action);
  return actor;
}

/** True when GitHub's `gh` is on PATH. */
export async function ghAvailable(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  try {
    return (await runAsync('gh', ['--version'], { cwd: process.cwd(), timeout: 10_000, env })).status === 0;
  } catch {
    return false;
  }
}

/**
 * Opens a todo's branch as a pull request through `gh`: pushes it to `origin` and asks for a PR into its base. Without
 * gh it says so and what to do instead; nothing is recorded then.
 */
export async function openPullRequest(kernel: Kernel, todoId: string, options: LandingOptions = {}): Promise<WorktreeRow> {
  const human = requireHuman(kernel, `opening a pull request for ${todoId}`);
  const row = landable(kernel, todoId, 'open as a pull request');
  options.onStep?.('checking');
  const repo = await top(kernel);
  const head = await resolveCommitAsync(repo, `refs/heads/${row.branch}`);
  if (!head) throw new RefusedError('git_failed', `branch ${row.branch} no longer exists`);
  if (!(await ghAvailable()))
    throw new RefusedError(
      'gh_missing',
      "GitHub's command-line tool (gh) is not installed here, so no pull request was opened",
      `install gh (https://cli.github.com), or push the branch yourself: git push -u origin ${row.branch}, and open the pull request on your git host`,
    );
  options.onStep?.('pushing');
  // A push stopped halfway lands nothing: the branch on origin is only a copy, and no pull request was asked for.
  await gitAsync(repo, ['push', '-u', 'origin', row.branch], { timeoutMs: 120_000, signal: options.signal });
  lastChanceToCancel(
    options,
    `opening a pull request for ${row.branch} was cancelled after the push: the branch is on origin, no pull request was asked for and nothing was recorded`,
  );
  options.onStep?.('opening');
  const todo = kernel.read((db) => getTodo(db, todoId));
  const body = `${todo.detail || todo.title}\n\nFrom loopx todo ${todoId} (branch ${row.branch}).`;
  // Not cancellable: gh may have opened the pull request already, which must then be recorded.
  const pr = await runAsync('gh', ['pr', 'create', '--base', row.base, '--head', row.branch, '--title', todo.title, '--body', body], {
    cwd: repo,
    timeout: 120_000,
    env: { ...process.env, GH_PROMPT_DISABLED: '1' },
  });
  if (pr.status !== 0) throw new RefusedError('git_failed', `gh could not open the pull request: ${(pr.stderr || pr.stdout).trim()}`);
  const url = pr.stdout.trim().split('\n').pop() ?? '';
  return kernel.as(human).write((tx) => {
    tx.emit({ kind: 'worktree.landed', goalId: row.goalId, todoId, data: { how: 'pr', branch: row.branch, head, commit: null, url } });
    return findWorktree(tx.db, todoId) as WorktreeRow;
  });
}

/**
 * Discards a todo's branch and folder. Uncommitted changes are never dropped without `force` (a person's word); the
 * branch's head is recorded, so it can be brought back (`git branch <name> <head>`) while git keeps the commit.
 */
export async function discardWorktree(kernel: Kernel, todoId: string, force: boolean, options: LandingOptions = {}): Promise<WorktreeRow> {
  const human = requireHuman(kernel, `discarding the branch of ${todoId}`);
  const row = landable(kernel, todoId, 'discard');
  options.onStep?.('checking');
  const repo = await top(kernel);
  const present = existsSync(row.path) && (await listGitWorktreesAsync(repo)).some((w) => w.branch === row.branch);
  if (present && !force)
    refuseDirty(`the worktree of ${todoId} (${row.path})`, await dirtyFilesAsync(row.path), 'a person may drop them with --force');
  const head = (await resolveCommitAsync(repo, `refs/heads/${row.branch}`)) ?? row.baseCommit;
  lastChanceToCancel(options, `discarding ${row.branch} was cancelled before anything changed; nothing was recorded`);
  options.onStep?.('removing');
  if (present) await gitAsync(repo, ['worktree', 'remove', ...(force ? ['--force'] : []), row.path]);
  await gitRawAsync(repo, ['branch', '-D', row.branch]);
  return kernel.as(human).write((tx) => {
    tx.emit({
      kind: 'worktree.landed',
      goalId: row.goalId,
      todoId,
      data: { how: 'discarded', branch: row.branch, head, commit: null, url: null },
    });
    if (present) recordRemoved(tx, row.goalId, todoId, row.path, force);
    return findWorktree(tx.db, todoId) as WorktreeRow;
  });
}

import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Tx } from '../kernel';
import type { Goal } from '../model';
import type { SqliteDb } from '../db/sqliteDb';
import { RefusedError } from '../errors';
import { type GitResult, git, gitRaw, gitRawAsync, gitWords, listGitWorktrees, resolveCommit } from './git';
import { branchFor, branchInUse, findWorktree, worktreesDir } from './worktreeRows';

/** Where a turn of a worktree goal works: its todo's branch, checked out in its own folder. */
export interface TurnWorktree {
  branch: string;
  base: string;
  /** The worktree's folder (the whole repository checked out). */
  path: string;
  /** Where the host runs: the folder in the worktree that matches the workspace root (the root may be below the repository's top). */
  cwd: string;
  /** True when this turn made it; false when it continues on a branch an earlier turn made. */
  created: boolean;
  /**
   * The goal's setup command, when it was due here and not run: agents have worked on the branch, and it would run
   * their files as the person (worktreeSetup.ts; its log says so). Absent otherwise.
   */
  setupNotRun?: string;
}

/** A worktree made ready on disk before the turn's write, for that write to adopt (turn start). */
export interface PreparedWorktree extends TurnWorktree {
  todoId: string;
  goalId: string;
  /** Where the branch started, as the store will record it. */
  baseCommit: string;
}

/**
 * Makes or finds the worktree of the todo a turn is about to start on. It runs git, so it runs before the turn's
 * write, never inside it: the store's write lock is not held while git works (a `worktree add` of a big repository
 * takes seconds). A todo that comes back continues on its branch and folder, wherever they were left: a runner
 * killed mid-turn leaves both, and the next turn picks them up as they are. A folder that was removed is made again
 * from the branch; a discarded or merged branch starts over from the base. Nothing of `.loopx/` goes into it: the
 * host reaches the one store through LOOPX_ROOT.
 *
 * If the turn is then refused (another runner claimed the todo first, should-run changed its mind), the worktree is
 * left where it is, reusable: the todo's next turn picks it up as any worktree left by an earlier turn. It is not
 * removed, because a runner that lost the race may have found the folder the winner is about to work in (only the
 * write knows who won, and git cannot run there); a fresh one holds nothing but the base, and `worktree clean`
 * lists it as stray if no turn ever adopts it.
 */
export function prepareTurnWorktree(db: SqliteDb, root: string, goal: Goal, todo: { id: string; title: string }): PreparedWorktree | null {
  const plan = planTurnWorktree(db, root, goal, todo);
  if (plan?.add) addedOrRefused(plan, gitRaw(plan.top, plan.add));
  return plan?.prepared ?? null;
}

/** prepareTurnWorktree with `git worktree add` (the slow part: seconds, up to its minute) as a non-blocking child. */
export async function prepareTurnWorktreeAsync(
  db: SqliteDb,
  root: string,
  goal: Goal,
  todo: { id: string; title: string },
  onAdd?: () => void,
): Promise<PreparedWorktree | null> {
  const plan = planTurnWorktree(db, root, goal, todo);
  if (plan?.add) {
    onAdd?.();
    addedOrRefused(plan, await gitRawAsync(plan.top, plan.add));
  }
  return plan?.prepared ?? null;
}

interface WorktreePlan {
  top: string;
  /** The `git worktree add` to run (null: the branch is checked out already, in `prepared.path`). */
  add: string[] | null;
  prepared: PreparedWorktree;
}

/** What preparing a todo's worktree takes: quick git reads (both variants share them), and the add to run, if any. */
function planTurnWorktree(db: SqliteDb, root: string, goal: Goal, todo: { id: string; title: string }): WorktreePlan | null {
  const base = goal.worktreeBase;
  if (base === null) return null;
  const top = git(root, ['rev-parse', '--show-toplevel']);
  const prefix = git(root, ['rev-parse', '--show-prefix']);
  const row = findWorktree(db, todo.id);
  const branch = row?.branch ?? branchFor(todo.id, todo.title);
  const branchHead = resolveCommit(top, `refs/heads/${branch}`);
  const reusable = branchInUse(row);
  let checkedOut = branchHead ? listGitWorktrees(top).find((w) => w.branch === branch) : undefined;
  if (checkedOut && !existsSync(checkedOut.path)) checkedOut = undefined; // deleted by hand: git lists it until pruned
  const path = checkedOut?.path ?? row?.path ?? join(worktreesDir(top), branch.slice('loopx/'.length));
  let add: string[] | null = null;
  if (!checkedOut) {
    gitRaw(top, ['worktree', 'prune']); // forget folders deleted by hand, so their branch can be checked out again
    const inTheWay = whatIsInTheWay(path, branch);
    if (inTheWay)
      throw new RefusedError(
        'git_failed',
        `cannot make the worktree of ${todo.id}: ${inTheWay}`,
        'move it away (nothing of it is touched), then start the turn again',
      );
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw new RefusedError('git_failed', `cannot make the worktree of ${todo.id}: ${(error as Error).message}`);
    }
    if (!branchHead && resolveCommit(top, base) === null)
      throw new RefusedError(
        'git_failed',
        `goal ${goal.id}'s worktree base ${base} names no branch or commit any more`,
        'a person sets another: loopx goal set-worktree',
      );
    add = branchHead ? ['worktree', 'add', path, branch] : ['worktree', 'add', '-b', branch, path, base];
  }
  const baseCommit =
    row && reusable && branchHead
      ? row.baseCommit
      : branchHead
        ? git(top, ['merge-base', base, branch])
        : (resolveCommit(top, base) as string);
  const prepared = {
    todoId: todo.id,
    goalId: goal.id,
    branch,
    base,
    baseCommit,
    path,
    cwd: prefix ? join(path, prefix) : path,
    created: add !== null,
  };
  return { top, add, prepared };
}

/**
 * What stands where a worktree's folder is to be made, in words, or null: a folder with files in it, or a file at the
 * folder's place or at a folder above it (the folder of all worktrees). Read only: the refusal changes nothing.
 */
function whatIsInTheWay(path: string, branch: string): string | null {
  for (let at = path; ; at = dirname(at)) {
    let isFolder: boolean;
    try {
      isFolder = statSync(at).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && dirname(at) !== at) continue; // a file above it is found further up
      return `${at} cannot be read (${code ?? String(error)}), where its folder goes`;
    }
    if (!isFolder) return `${at} is a file, where ${at === path ? 'its folder goes' : 'a folder must be'}`;
    if (at === path && readdirSync(path).length > 0) return `${path} exists and is not a worktree of branch ${branch}`;
    return null;
  }
}

function addedOrRefused(plan: WorktreePlan, added: GitResult): void {
  if (added.status !== 0) throw new RefusedError('git_failed', `cannot make the worktree of ${plan.prepared.todoId}: ${gitWords(added)}`);
}

/**
 * Adopts a worktree prepared before the write for the turn's todo, inside the turn's write: no git here, only the
 * store. It records the worktree when the store does not know it as it is now (a first turn, a folder made again).
 */
export function adoptTurnWorktree(tx: Tx, prepared: PreparedWorktree): TurnWorktree {
  const { todoId, goalId, branch, base, baseCommit, path } = prepared;
  if (!existsSync(path))
    throw new RefusedError(
      'git_failed',
      `the worktree of ${todoId} (${path}) was removed while its turn was starting`,
      'start the turn again: it is made again from the branch',
    );
  const row = findWorktree(tx.db, todoId);
  const reusable = branchInUse(row);
  if (!row || !reusable || row.removedAt !== null || row.path !== path || row.branch !== branch) {
    tx.emit({ kind: 'worktree.created', goalId, todoId, data: { branch, base, baseCommit, path } });
  }
  return {
    branch,
    base,
    path,
    cwd: prepared.cwd,
    created: prepared.created,
    ...(prepared.setupNotRun ? { setupNotRun: prepared.setupNotRun } : {}),
  };
}

import type { Kernel, Tx } from '../kernel';
import type { Goal } from '../model';
import { InvalidInputError } from '../errors';
import { requireHumanChannel } from '../authority';
import { isGitRepo, resolveCommit, validBranchName } from './git';
import { getGoal } from '../goals/goalQueries';

/**
 * A goal's worktree base, checked against the workspace: it is a git repository and `base` names a commit (a branch,
 * usually). Run before the write: git is asked outside the store's write lock.
 */
export function checkWorktreeBase(root: string, base: string): string {
  const name = base.trim();
  if (!name) throw new InvalidInputError('the worktree base is empty: name a branch, e.g. --worktree main');
  if (!isGitRepo(root))
    throw new InvalidInputError(
      `${root} is not a git repository: turns cannot get worktrees there`,
      'run git init, or leave --worktree out',
    );
  if (!validBranchName(root, name) || resolveCommit(root, name) === null)
    throw new InvalidInputError(
      `no branch or commit named ${JSON.stringify(name)} in this repository`,
      'name an existing branch, e.g. main',
    );
  return name;
}

/** Records the goal's worktree setting inside a write (goal create passes it, and `goal set-worktree`). */
export function setWorktreeInTx(tx: Tx, goalId: string, base: string | null, from: string | null): void {
  tx.emit({ kind: 'goal.worktree_set', goalId, todoId: null, data: { base, from } });
}

/**
 * Turns a goal's worktrees on (from `base`) or off. A person's setting once the goal exists: it decides where agents
 * write (an agent may ask for worktrees when it creates a goal, which starts paused anyway).
 */
export function setGoalWorktree(kernel: Kernel, goalId: string, base: string | null): Goal {
  requireHumanChannel(kernel.requireActor(), `changing where goal ${goalId}'s turns work`);
  const checked = base === null ? null : checkWorktreeBase(kernel.root, base);
  return kernel.write((tx) => {
    const goal = getGoal(tx.db, goalId);
    if (goal.worktreeBase === checked) return goal;
    setWorktreeInTx(tx, goalId, checked, goal.worktreeBase);
    return getGoal(tx.db, goalId);
  });
}

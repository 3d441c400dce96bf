import type { Kernel, Tx } from '../kernel';
import type { Goal } from '../model';
import { InvalidInputError } from '../errors';
import { requireHumanChannel } from '../authority';
import { isGitRepo, resolveCommit, validBranchName } from './git';
import { parseSetup } from './worktreeSetup';
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

/** Records the goal's worktree setting inside a write (goal create passes it, `goal set-worktree` and goal files). */
export function setWorktreeInTx(
  emit: Tx['emit'],
  goalId: string,
  base: string | null,
  from: string | null,
  setup?: { to: string | null; from: string | null },
): void {
  emit({
    kind: 'goal.worktree_set',
    goalId,
    todoId: null,
    data: { base, from, ...(setup ? { setup: setup.to, setupFrom: setup.from } : {}) },
  });
}

/**
 * Turns a goal's worktrees on (from `base`) or off, and sets or clears their setup command (`undefined`: unchanged). A person's setting once the goal exists: it decides where agents
 * write (an agent may ask for worktrees when it creates a goal, which starts paused anyway).
 */
export function setGoalWorktree(kernel: Kernel, goalId: string, base: string | null | undefined, setup?: string | null): Goal {
  requireHumanChannel(kernel.requireActor(), `changing where goal ${goalId}'s turns work`);
  const given = base === undefined || base === null ? base : checkWorktreeBase(kernel.root, base);
  // The setup command runs unattended in every new worktree: only a person sets it (this function's channel check).
  const command = setup === undefined || setup === null ? setup : parseSetup(setup);
  return kernel.write((tx) => {
    const goal = getGoal(tx.db, goalId);
    const checked = given === undefined ? goal.worktreeBase : given; // undefined: the base stays as it is
    const setupChange = command !== undefined && command !== goal.worktreeSetup ? { to: command, from: goal.worktreeSetup } : undefined;
    if (goal.worktreeBase === checked && !setupChange) return goal;
    setWorktreeInTx(tx.emit.bind(tx), goalId, checked, goal.worktreeBase, setupChange);
    return getGoal(tx.db, goalId);
  });
}

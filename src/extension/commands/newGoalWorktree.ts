import { InvalidInputError } from '../../kernel/errors';
import { gitRaw, isGitRepo } from '../../kernel/worktrees/git';
import { checkWorktreeBase } from '../../kernel/worktrees/worktreeSetting';

/** The branch checked out in the workspace (New Goal's default worktree base), or '' (no repository, a detached head). */
export function currentBranch(root: string): string {
  try {
    if (!isGitRepo(root)) return '';
    const head = gitRaw(root, ['rev-parse', '--abbrev-ref', 'HEAD']);
    const name = head.stdout.trim();
    return head.status === 0 && name !== 'HEAD' ? name : '';
  } catch {
    return ''; // git not installed: the step starts empty, and its check says why a base cannot be used
  }
}

/**
 * What is wrong with a worktree base as typed, in words (the kernel's check, the one `goal create --worktree` runs),
 * or undefined when it is fine; empty means no worktrees, which is always fine.
 */
export function worktreeBaseProblem(root: string, text: string): string | undefined {
  if (!text.trim()) return undefined;
  try {
    checkWorktreeBase(root, text);
    return undefined;
  } catch (error) {
    if (error instanceof InvalidInputError) {
      // The kernel speaks to the CLI ("--worktree main"); in the box a person reads what to type instead.
      if (/not a git repository/.test(error.message))
        return 'This folder is not a git repository, so turns cannot get worktrees here. Leave this empty.';
      return `No branch or commit named “${text.trim()}” in this repository: name an existing branch, e.g. ${currentBranch(root) || 'main'}.`;
    }
    return error instanceof Error ? error.message : String(error);
  }
}

import type { Kernel } from '../kernel';
import { gitRaw } from './git';
import { findWorktree } from './worktreeRows';
import { type ReviewScope, readReviewScope, sameScope } from './changeScope';

/**
 * An approved change's uncommitted part, committed on its todo's branch exactly as the review judged it. Agents often
 * may not commit (Claude Code under loopx's default command runs no `git commit`), so a change in a worktree is often
 * files not yet committed; a person's merge takes only commits. Once the change is approved and still the scope the
 * reviewer saw (its hash says so), the kernel commits it, authored by the implementer: the branch then holds what was
 * approved and nothing else, and the person merges it as any branch. Without a worktree the change is in the
 * workspace itself, where the person commits as always.
 */
export interface ApprovedCommit {
  /** The new commit, or null when nothing was committed (`why` says why). */
  commit: string | null;
  branch: string;
  why?: string;
}

const GIT_MS = 30_000;

/** Commits todo `todoId`'s approved change on its branch (`scope`: the approved round's); null without a worktree on disk. */
export function commitApproved(
  kernel: Kernel,
  todoId: string,
  scope: ReviewScope,
  words: { title: string; implementer: string | null; round: number },
): ApprovedCommit | null {
  const worktree = kernel.read((db) => findWorktree(db, todoId));
  if (!worktree || worktree.removedAt !== null || worktree.status !== 'open') return null;
  const branch = worktree.branch;
  try {
    const now = readReviewScope(kernel.root, worktree);
    if (now.head === null) return null;
    if (!sameScope(now, scope))
      return { commit: null, branch, why: 'the change moved after it was approved; a person looks before it lands' };
    const dir = worktree.path;
    // The scope's own files, each named (they leave out loopx's folder and the hosts' config already): an exclusion
    // pathspec that names an ignored folder makes `git add` fail.
    for (let i = 0; i < now.files.length; i += 200) {
      const staged = gitRaw(dir, ['add', '-A', '--', ...now.files.slice(i, i + 200)], { timeoutMs: GIT_MS });
      if (staged.status !== 0) return { commit: null, branch, why: `git add failed: ${staged.stderr.trim()}` };
    }
    if (gitRaw(dir, ['diff', '--cached', '--quiet'], { timeoutMs: GIT_MS }).status === 0) return null; // all committed already
    const who = words.implementer ?? 'agent';
    const message = `${todoId}: ${words.title}\n\nApproved in review round ${words.round} (loopx ${todoId}; committed by loopx for ${who}).`;
    // The workspace's own identity commits; where it has none, loopx's (git refuses to commit without one).
    const identity = gitRaw(dir, ['config', 'user.email'], { timeoutMs: GIT_MS }).stdout.trim()
      ? []
      : ['-c', 'user.name=loopx', '-c', 'user.email=loopx@localhost'];
    const committed = gitRaw(
      dir,
      [...identity, 'commit', '-q', '--no-verify', '-m', message, '--author', `${who} (via loopx) <loopx@localhost>`],
      {
        timeoutMs: GIT_MS,
      },
    );
    if (committed.status !== 0) {
      gitRaw(dir, ['reset', '-q'], { timeoutMs: GIT_MS }); // back to what it was: the files as the agent left them
      return { commit: null, branch, why: `git commit failed: ${(committed.stderr || committed.stdout).trim()}` };
    }
    return { commit: gitRaw(dir, ['rev-parse', 'HEAD'], { timeoutMs: GIT_MS }).stdout.trim(), branch };
  } catch (error) {
    // git could not run here (a read-only sandbox, git missing): the approval stands, the files wait for a person.
    return { commit: null, branch, why: (error as Error).message };
  }
}

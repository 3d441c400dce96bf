import type { Kernel } from './kernel';
import type { SqliteDb } from './db/sqliteDb';
import { LoopxError, RefusedError } from './errors';
import { databaseDecides, requireStandingDecision } from './decisions';
import { effectiveCheck, requireAcceptanceCheckStanding } from './checks/checks';
import { describeRun } from './evidence/evidenceQueries';
import { runEvidence } from './evidence/evidenceRun';
import { KERNEL } from './authority';
import { getGoal } from './goals/goalQueries';
import { getTodo } from './todos/todoQueries';
import { findWorktree } from './worktrees/worktreeRows';
import { mergeWorktree } from './worktrees/landing';

/**
 * An approved change landing on its own (issue 42): a goal's review may say that a change its reviewer approved, and
 * whose acceptance check passed, is merged without waiting for a person (`autoLand`). That is the person's decision,
 * made once and standing: the setting's own event (the goal's latest `goal.review_set`, or its creation through VS
 * Code or a terminal) must be a person's decision this machine's key proves (decisions.ts), else nothing lands. The
 * merge is the kernel's, recorded with that decision's seq (`worktree.landed`'s `standing`). What does not land is
 * said, and waits for a person as any approved change: no acceptance check, one that no person set or that does not
 * pass when loopx runs it once more on the approved commit (recorded as the kernel's evidence), a team store (its
 * database takes landings from people's logins only), a conflict, or uncommitted files where the base is checked out.
 */
export interface AutoLanding {
  landed: boolean;
  /** The base's new commit, when it landed. */
  commit?: string;
  /** Why it did not land (it waits for a person). */
  why?: string;
}

/** The decision an approved todo's landing stands on, or why it may not land; null when its goal does not ask. */
function standingFor(db: SqliteDb, todoId: string): { seq: number } | { why: string } | null {
  const todo = getTodo(db, todoId);
  const goal = getGoal(db, todo.goalId);
  if (!goal.review?.autoLand || todo.status !== 'shipped') return null;
  if (databaseDecides(db))
    return { why: "in a team store a person lands each change (its database takes landings from people's logins only)" };
  const worktree = findWorktree(db, todoId);
  if (!worktree || worktree.status !== 'open') return { why: 'it has no branch of its own to merge' };
  const check = effectiveCheck(db, todoId);
  if (!check) return { why: 'it has no acceptance check: only a change whose check passed lands on its own' };
  const setting = db
    .prepare(`SELECT seq, data FROM events WHERE goal_id = ? AND kind IN ('goal.created', 'goal.review_set') ORDER BY seq DESC LIMIT 1`)
    .get(goal.id);
  const review = setting ? (JSON.parse(String(setting.data)) as { review?: { autoLand?: boolean } | null }).review : null;
  try {
    requireAcceptanceCheckStanding(db, { todoId, goalId: goal.id, from: check.from }, check.check);
    requireStandingDecision(
      db,
      review?.autoLand === true ? Number(setting?.seq) : null,
      `landing goal ${goal.id}'s approved changes on their own`,
    );
  } catch (error) {
    if (error instanceof LoopxError) return { why: error.message };
    throw error;
  }
  return { seq: Number(setting?.seq) };
}

/**
 * Lands todo `todoId`'s approved change when its goal's standing setting lets it: a fast-forward of the base, or a
 * merge commit when the base moved on. Null when the goal does not ask; otherwise whether it landed, or why not.
 */
export async function landApproved(kernel: Kernel, todoId: string): Promise<AutoLanding | null> {
  const standing = kernel.read((db) => standingFor(db, todoId));
  if (standing === null) return null;
  if ('why' in standing) return { landed: false, why: standing.why };
  try {
    // The check once more, on the branch as approved (its files are committed by now): what lands is what passed.
    const { evidence, result } = await runEvidence(kernel.as(KERNEL), { todoId, check: true });
    if (result.exitCode !== 0) {
      const ran = evidence.run ? describeRun(evidence.run) : `exit ${String(result.exitCode)}`;
      return { landed: false, why: `its acceptance check did not pass on the approved change (${ran})` };
    }
    const row = await mergeWorktree(kernel, todoId, 'ff', { standing: standing.seq }).catch((error: unknown) => {
      // The base moved on since the branch started: a merge commit instead.
      if (error instanceof RefusedError && error.code === 'merge_conflict' && /fast-forwarded/.test(error.message))
        return mergeWorktree(kernel, todoId, 'merge', { standing: standing.seq });
      throw error;
    });
    return { landed: true, commit: row.landedCommit ?? undefined };
  } catch (error) {
    if (error instanceof LoopxError) return { landed: false, why: error.message };
    throw error;
  }
}

import type { Kernel } from '../kernel';
import { RefusedError } from '../errors';
import { parseTurnId } from '../validate';
import { getGoal } from '../queries/lookups';
import { type QuotaState, budgetRoom, quotaState } from '../queries/quota';

/**
 * Records one slot for a turn id, once: a second spend for the same id changes nothing.
 * Refused (exit 3) when the window's budget is already used up.
 */
export function spendQuota(
  kernel: Kernel,
  goalId: string,
  turnIdText: string,
): { spent: boolean; alreadySpent: boolean; quota: QuotaState } {
  kernel.requireActor();
  const turnId = parseTurnId(turnIdText);
  return kernel.write((tx) => {
    const goal = getGoal(tx.db, goalId);
    if (tx.db.prepare('SELECT 1 FROM quota_spends WHERE goal_id = ? AND turn_id = ? COLLATE NOCASE').get(goal.id, turnId)) {
      return { spent: false, alreadySpent: true, quota: quotaState(tx.db, goal, tx.nowMs) };
    }
    const before = quotaState(tx.db, goal, tx.nowMs);
    // Open turns' reservations count: a spend by hand never takes a slot a running turn was promised.
    if (budgetRoom(tx.db, goal, tx.nowMs, turnId) <= 0) {
      const reserved = before.reserved ? ` and ${before.reserved} running turn${before.reserved === 1 ? '' : 's'} hold the rest` : '';
      throw new RefusedError(
        'budget_exhausted',
        `goal ${goal.id} has spent ${before.spent} of ${before.turnsPerWindow} turns in its ${before.windowHours}h window${reserved}`,
        before.nextSlotAt ? `the next slot frees at ${before.nextSlotAt}` : 'raise the goal budget to run more turns',
      );
    }
    tx.emit({ kind: 'quota.spent', goalId: goal.id, todoId: null, data: { turnId } });
    return { spent: true, alreadySpent: false, quota: quotaState(tx.db, goal, tx.nowMs) };
  });
}

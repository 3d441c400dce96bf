import type { Kernel, Tx } from '../kernel';
import type { Goal } from '../model';
import { RefusedError } from '../errors';
import { parseTurnId } from '../validate';
import { type QuotaState, budgetRoom, quotaState } from './quotaQueries';
import { getGoal } from './goalQueries';

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
    const before = quotaState(tx.db, goal, tx.nowMs);
    const spent = spendInTx(tx, goal, turnId);
    if (spent === 'no_room') {
      const reserved = before.reserved ? ` and ${before.reserved} running turn${before.reserved === 1 ? '' : 's'} hold the rest` : '';
      throw new RefusedError(
        'budget_exhausted',
        `goal ${goal.id} has spent ${before.spent} of ${before.turnsPerWindow} turns in its ${before.windowHours} h window${reserved}`,
        before.nextSlotAt ? `the next slot frees at ${before.nextSlotAt}` : 'raise the goal budget to run more turns',
      );
    }
    return { spent: spent === 'spent', alreadySpent: spent === 'already_spent', quota: quotaState(tx.db, goal, tx.nowMs) };
  });
}

export type SpendOutcome = 'spent' | 'already_spent' | 'no_room' | 'not_spent';

/**
 * The one write path of `quota.spent`: a turn id is spent once, and never past the window's budget (open turns'
 * reservations count, but the turn's own). `quota spend` refuses when there is no room; a finishing turn records
 * that its budget was full. `validated: false` (a turn that wrote nothing back) spends nothing, but still learns
 * whether its id was already spent by hand.
 */
export function spendInTx(tx: Tx, goal: Goal, turnId: string, validated = true): SpendOutcome {
  if (tx.db.prepare('SELECT 1 FROM quota_spends WHERE goal_id = ? AND turn_id = ? COLLATE NOCASE').get(goal.id, turnId)) {
    return 'already_spent';
  }
  if (!validated) return 'not_spent';
  if (budgetRoom(tx.db, goal, tx.nowMs, turnId) <= 0) return 'no_room';
  tx.emit({ kind: 'quota.spent', goalId: goal.id, todoId: null, data: { turnId } });
  return 'spent';
}

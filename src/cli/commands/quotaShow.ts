import type { Command } from '../command';
import { quotaState, shouldRun } from '../../kernel/goals/quotaQueries';
import { list, relativeTime } from '../format';
import { budgetWords } from '../../shared/usageWords';
import { getGoal, listGoals } from '../../kernel/goals/goalQueries';

export const quotaShow: Command = {
  name: ['quota', 'show'],
  summary: 'turns spent, reserved by running turns and left in each goal window, what they used, with the should-run answer',
  flags: { goal: { type: 'string', value: 'G', description: 'only this goal' } },
  run(ctx) {
    const goalId = ctx.args.id('goal');
    const { rows, now } = ctx.kernel().read((db, now) => {
      const goals = goalId ? [getGoal(db, goalId)] : listGoals(db);
      return { rows: goals.map((g) => ({ ...quotaState(db, g, now), shouldRun: shouldRun(db, g, now) })), now };
    });
    const text = list(
      rows,
      (q) =>
        `${q.goalId.padEnd(4)} ${q.spent}/${q.turnsPerWindow} turns in ${q.windowHours}h, ` +
        `${q.reserved ? `${q.reserved} reserved by running turns, ` : ''}${q.remaining} left` +
        (q.nextSlotAt ? `; oldest slot frees ${relativeTime(q.nextSlotAt, now)}` : '') +
        `; used ${budgetWords(q.usage)}` +
        `; should run: ${q.shouldRun.run ? 'yes' : `no (${q.shouldRun.reason})`}` +
        (q.shouldRun.nextWakeAt ? `, wake ${relativeTime(q.shouldRun.nextWakeAt, now)}` : ''),
      'No goals.',
    );
    return { data: goalId ? rows[0] : rows, text };
  },
};

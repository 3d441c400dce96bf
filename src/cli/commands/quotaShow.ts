import type { Command } from '../command';
import { quotaState, shouldRun } from '../../kernel/goals/quotaQueries';
import { list, relativeTime } from '../format';
import { budgetWords, cacheWords, dollars } from '../../shared/usageWords';
import { roleFigures } from '../../kernel/readModels/roleFigures';
import { cacheFigures } from '../../kernel/readModels/cacheFigures';
import { iso } from '../../kernel/time';
import { getGoal, listGoals } from '../../kernel/goals/goalQueries';
import { shouldRunWhy } from '../shouldRunFacts';

export const quotaShow: Command = {
  name: ['quota', 'show'],
  summary:
    "turns spent, reserved by running turns and left in each goal window, what they used (and the prompt cache's share and savings), with the should-run answer",
  flags: { goal: { type: 'string', value: 'G', description: 'only this goal' } },
  run(ctx) {
    const goalId = ctx.args.id('goal');
    const { rows, why, now } = ctx.kernel().read((db, now) => {
      const goals = goalId ? [getGoal(db, goalId)] : listGoals(db);
      const rows = goals.map((g) => {
        const answer = shouldRun(db, g, now);
        // The prompt cache over the same window as the usage: its share of the input, and what it saved.
        const since = iso(now - g.policy.windowHours * 3600_000);
        const cache = cacheFigures(db, g.id, since);
        // The window's turns by role: the implementers' and, with peer review, the reviewers'.
        const byRole = roleFigures(db, g.id, since);
        return {
          row: { ...quotaState(db, g, now), cache, byRole, shouldRun: answer },
          why: answer.run ? '' : shouldRunWhy(db, g, now, answer),
        };
      });
      return { rows: rows.map((r) => r.row), why: new Map(rows.map((r) => [r.row.goalId, r.why])), now };
    });
    const text = list(
      rows,
      (q) =>
        `${q.goalId.padEnd(4)} ${q.spent}/${q.turnsPerWindow} turns in ${q.windowHours} h, ` +
        `${q.reserved ? `${q.reserved} reserved by running turns, ` : ''}${q.remaining} left` +
        (q.nextSlotAt ? `; oldest slot frees ${relativeTime(q.nextSlotAt, now)}` : '') +
        `; used ${budgetWords(q.usage)}` +
        (cacheWords(q.cache) ? ` (${cacheWords(q.cache)})` : '') +
        (q.byRole.review.turns
          ? `; reviews: ${q.byRole.review.turns} turns, ${q.byRole.review.spent} spent, ${dollars(q.byRole.review.costUsd)}`
          : '') +
        `; should run: ${q.shouldRun.run ? 'yes' : `no (${why.get(q.goalId)})`}` +
        (q.shouldRun.nextWakeAt ? `, wake ${relativeTime(q.shouldRun.nextWakeAt, now)}` : ''),
      'No goals.',
    );
    return { data: goalId ? rows[0] : rows, text };
  },
};

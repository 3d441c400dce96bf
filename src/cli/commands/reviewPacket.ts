import type { Command } from '../command';
import { getGoal } from '../../kernel/queries/lookups';
import { renderReviewPacket } from '../../kernel/projections/reviewPacket';

export const reviewPacket: Command = {
  name: ['review-packet'],
  summary: 'Markdown for the owner: decisions, what shipped with evidence, what is blocked, open gates, quota, turns',
  flags: { goal: { type: 'string', value: 'G', description: 'only this goal' } },
  run(ctx) {
    const goalId = ctx.args.id('goal');
    const markdown = ctx.kernel().read((db, now) => {
      if (goalId) getGoal(db, goalId);
      return renderReviewPacket(db, now, goalId);
    });
    return { data: { markdown }, text: markdown };
  },
};

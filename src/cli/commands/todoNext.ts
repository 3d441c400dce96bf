import type { Command } from '../command';
import { nextClaimable } from '../../kernel/todos/todoQueries';
import { iso } from '../../kernel/time';
import { Painter, todoDetail } from '../format';
import { getGoal } from '../../kernel/goals/goalQueries';

export const todoNext: Command = {
  name: ['todo', 'next'],
  summary: 'the todo `todo claim --next` would take, or null',
  readOnly: true,
  flags: { goal: { type: 'string', value: 'G', description: 'only this goal' } },
  run(ctx) {
    const goalId = ctx.args.id('goal');
    const { todo, now } = ctx.kernel().read((db, now) => {
      if (goalId) getGoal(db, goalId);
      return { todo: nextClaimable(db, iso(now), goalId), now };
    });
    return { data: todo, text: todo ? todoDetail(new Painter(ctx.color), todo, now) : 'Nothing is ready to claim.' };
  },
};

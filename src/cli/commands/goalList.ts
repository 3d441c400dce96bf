import type { Command } from '../command';
import { goalLine, list, Painter } from '../format';
import { listGoals } from '../../kernel/goals/goalQueries';

export const goalList: Command = {
  name: ['goal', 'list'],
  summary: 'list goals',
  run(ctx) {
    const goals = ctx.kernel().read((db) => listGoals(db));
    const p = new Painter(ctx.color);
    return { data: goals, text: list(goals, (g) => goalLine(p, g), 'No goals yet. Create one: loopx goal create --title "…"') };
  },
};

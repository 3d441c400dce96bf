import { setGoalStatus } from '../../kernel/ops/goals';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { resolveGoal } from './pickers';

export const pauseGoal: CommandDefinition = {
  id: COMMANDS.pauseGoal,
  async run(ctx, arg) {
    const goal = await resolveGoal(ctx, arg, (g) => g.status === 'active');
    return goal && setGoalStatus(kernelOf(ctx), goal.id, 'paused');
  },
};

export const resumeGoal: CommandDefinition = {
  id: COMMANDS.resumeGoal,
  async run(ctx, arg) {
    const goal = await resolveGoal(ctx, arg, (g) => g.status !== 'active');
    return goal && setGoalStatus(kernelOf(ctx), goal.id, 'active');
  },
};

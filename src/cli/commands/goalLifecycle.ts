import type { Command } from '../command';
import type { GoalStatus } from '../../kernel/model';
import { setGoalStatus } from '../../kernel/ops/goals';
import { parseId } from '../../kernel/validate';
import { goalLine, Painter } from '../format';

/** pause, resume, done and stop differ only in the status they ask for. */
function lifecycle(verb: string, status: GoalStatus, summary: string): Command {
  return {
    name: ['goal', verb],
    summary,
    mutates: true,
    positionals: [{ name: 'ID', description: 'goal id, e.g. G1', required: true }],
    run(ctx) {
      const goal = setGoalStatus(ctx.kernel(), parseId('goal', ctx.args.positionals[0]), status);
      return { data: goal, text: goalLine(new Painter(ctx.color), goal) };
    },
  };
}

export const goalPause = lifecycle('pause', 'paused', 'pause a goal: no new claims or turns until resumed');
export const goalResume = lifecycle('resume', 'active', 'make a paused, done or stopped goal active again');
export const goalDone = lifecycle('done', 'done', 'mark a goal done');
export const goalStop = lifecycle('stop', 'stopped', 'stop a goal without finishing it');

import type { Command } from '../command';
import type { GoalStatus } from '../../kernel/model';
import { setGoalStatus } from '../../kernel/goals/goals';
import { resumeNeedsHuman } from '../../kernel/authority';
import { parseId } from '../../kernel/validate';
import { goalLine, Painter } from '../format';
import { getGoal } from '../../kernel/goals/goalQueries';

/** pause, resume, done and stop differ only in the status they ask for. */
function lifecycle(verb: string, status: GoalStatus, summary: string): Command {
  return {
    name: ['goal', verb],
    summary,
    mutates: true,
    positionals: [{ name: 'ID', description: 'goal id, e.g. G1', required: true }],
    run(ctx) {
      const id = parseId('goal', ctx.args.positionals[0]);
      let kernel = ctx.kernel();
      if (status === 'active' && ctx.canConfirm) {
        const { goal, needsHuman } = kernel.read((db) => ({ goal: getGoal(db, id), needsHuman: resumeNeedsHuman(db, id) }));
        if (needsHuman && goal.status !== 'active') {
          kernel = kernel.as(
            ctx.confirmHuman(`start goal ${id}`, id, [
              goal.title,
              `budget: ${goal.policy.turnsPerWindow} turns per ${goal.policy.windowHours} h, ${goal.policy.maxConcurrent} at once`,
            ]),
          );
        }
      }
      const goal = setGoalStatus(kernel, id, status);
      return { data: goal, text: goalLine(new Painter(ctx.color), goal) };
    },
  };
}

export const goalPause = lifecycle('pause', 'paused', 'pause a goal: no new claims or turns until resumed');
export const goalResume = lifecycle(
  'resume',
  'active',
  'make a paused, done or stopped goal active again (a goal a human paused or stopped, or an agent created: humans only, typing the goal id)',
);
export const goalDone = lifecycle('done', 'done', 'mark a goal done');
export const goalStop = lifecycle('stop', 'stopped', 'stop a goal without finishing it');

import type { Command } from '../command';
import { SHOULD_RUN_CLASSES, SHOULD_RUN_REASONS, shouldRun } from '../../kernel/goals/quotaQueries';
import { parseId } from '../../kernel/validate';
import { relativeTime } from '../format';
import { getGoal } from '../../kernel/goals/goalQueries';
import { setupWaits } from '../../kernel/worktrees/setupBackoff';
import { shouldRunWhy } from '../shouldRunFacts';
import { countOf } from '../../shared/countWords';

export const quotaShouldRun: Command = {
  name: ['quota', 'should-run'],
  summary: 'should a turn run for this goal now? never spends',
  readOnly: true,
  description:
    `Answers { run, reason, nextWakeAt, remaining }; reason is one of ${SHOULD_RUN_REASONS.map((r) => {
      const note = SHOULD_RUN_CLASSES[r].note;
      return note ? `${r} (${note})` : r;
    }).join(', ')}. ` + 'nextWakeAt is null when only a human can unblock it. The text says why in the words loopx run and VS Code use.',
  flags: { goal: { type: 'string', value: 'G', required: true, description: 'the goal' } },
  run(ctx) {
    const goalId = parseId('goal', ctx.args.str('goal'));
    const kernel = ctx.kernel();
    const { answer, why, now } = kernel.read((db, now) => {
      const goal = getGoal(db, goalId);
      // As a runner would plan: a todo whose worktree setup failed waits out its back-off.
      const answer = shouldRun(db, goal, now, { setupWaits: setupWaits(kernel.storeDir, goal, now) });
      return { answer, why: shouldRunWhy(db, goal, now, answer), now };
    });
    const wake = answer.nextWakeAt
      ? `; wake ${relativeTime(answer.nextWakeAt, now)} (${answer.nextWakeAt})`
      : answer.run
        ? ''
        : '; waits for a human';
    return { data: answer, text: `${answer.run ? 'yes' : 'no'}: ${why}; ${countOf(answer.remaining, 'turn')} left${wake}` };
  },
};

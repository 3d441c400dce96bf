import type { Command } from '../command';
import { listTurns } from '../../kernel/turns/turnQueries';
import { list, relativeTime } from '../format';
import { moreLine, pageFlags, pageOf } from '../paging';
import { usageWords } from '../../shared/usageWords';
import { getGoal } from '../../kernel/goals/goalQueries';

export const turnList: Command = {
  name: ['turn', 'list'],
  summary: 'turns, newest first, with their results and what they used, 100 at a time',
  description: 'When the list was cut, the envelope says how many more: {"ok":true,"data":[…],"more":N}; --offset N reads the next page.',
  readOnly: true,
  flags: {
    goal: { type: 'string', value: 'G', description: 'only this goal' },
    ...pageFlags('turns'),
  },
  run(ctx) {
    const goalId = ctx.args.id('goal');
    const page = pageOf(ctx.args);
    const { turns, more } = ctx.kernel().read((db) => {
      if (goalId) getGoal(db, goalId);
      return listTurns(db, { goalId, limit: page.limit, offset: page.offset });
    });
    const now = Date.now();
    const text = () => {
      const lines = list(
        turns,
        (t) =>
          `${t.id.padEnd(5)} ${t.goalId} ${t.todoId ?? ''}  ${t.agent} on ${t.host}  ${t.resultKind ?? 'running'}${t.spent ? ' (spent)' : ''}  ${relativeTime(t.startedAt, now)}${t.usage ? `  ${usageWords(t.usage)}` : ''}`,
        'No turns yet.',
      );
      return more
        ? `${lines}\n${moreLine(more, page, ['loopx turn list', goalId && `--goal ${goalId}`].filter(Boolean).join(' '))}`
        : lines;
    };
    return { data: turns, more, text };
  },
};

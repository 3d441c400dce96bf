import type { Command } from '../command';
import { getGoal } from '../../kernel/queries/lookups';
import { listTurns } from '../../kernel/queries/turns';
import { list, relativeTime } from '../format';

export const turnList: Command = {
  name: ['turn', 'list'],
  summary: 'turns, newest first, with their results',
  flags: {
    goal: { type: 'string', value: 'G', description: 'only this goal' },
    limit: { type: 'int', value: 'N', min: 1, max: 10_000, description: 'how many (default 100)' },
  },
  run(ctx) {
    const goalId = ctx.args.id('goal');
    const turns = ctx.kernel().read((db) => {
      if (goalId) getGoal(db, goalId);
      return listTurns(db, { goalId, limit: ctx.args.num('limit') });
    });
    const now = Date.now();
    const text = list(
      turns,
      (t) =>
        `${t.id.padEnd(5)} ${t.goalId} ${t.todoId ?? ''}  ${t.agent} on ${t.host}  ${t.resultKind ?? 'running'}${t.spent ? ' (spent)' : ''}  ${relativeTime(t.startedAt, now)}`,
      'No turns yet.',
    );
    return { data: turns, text };
  },
};

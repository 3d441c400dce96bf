import type { Command } from '../command';
import { TODO_STATUSES, type TodoStatus } from '../../kernel/model';
import { InvalidInputError } from '../../kernel/errors';
import { listTodos } from '../../kernel/queries/lists';
import { getGoal } from '../../kernel/queries/lookups';
import { iso } from '../../kernel/time';
import { list, Painter, todoLine } from '../format';

export const todoList: Command = {
  name: ['todo', 'list'],
  summary: 'list todos (all, by goal, by status, or only those ready to claim)',
  flags: {
    goal: { type: 'string', value: 'G', description: 'only this goal' },
    status: { type: 'string', value: 'S', description: `only this status: ${TODO_STATUSES.join(', ')}` },
    ready: { type: 'boolean', description: 'only todos a claim could take now, in claim order' },
  },
  run(ctx) {
    const a = ctx.args;
    const status = a.str('status');
    if (status !== undefined && !TODO_STATUSES.includes(status as TodoStatus)) {
      throw new InvalidInputError(`--status must be one of ${TODO_STATUSES.join(', ')}`);
    }
    const goalId = a.id('goal');
    const { todos, now } = ctx.kernel().read((db, now) => {
      if (goalId) getGoal(db, goalId);
      return { todos: listTodos(db, iso(now), { goalId, status: status as TodoStatus | undefined, ready: a.bool('ready') }), now };
    });
    const p = new Painter(ctx.color);
    return { data: todos, text: list(todos, (t) => todoLine(p, t, now), 'No todos match.') };
  },
};

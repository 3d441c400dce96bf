import type { Command } from '../command';
import { TODO_STATUSES, type TodoStatus } from '../../kernel/model';
import { InvalidInputError } from '../../kernel/errors';
import { iso } from '../../kernel/time';
import { lean } from '../../protocol/lean';
import { list, Painter, todoLine } from '../format';
import { moreLine, PAGE_FLAGS, pageOf } from '../paging';
import { listTodos, todoPage } from '../../kernel/todos/todoQueries';
import { getGoal } from '../../kernel/goals/goalQueries';

export const todoList: Command = {
  name: ['todo', 'list'],
  summary: 'list todos (all, by goal, by status, or only those ready to claim), 100 at a time',
  readOnly: true,
  description:
    'With --json, data is the list; a field that is unset or empty is left out. When the list was cut, the envelope says how many more: {"ok":true,"data":[…],"more":N}.',
  flags: {
    goal: { type: 'string', value: 'G', description: 'only this goal' },
    status: { type: 'string', value: 'S', description: `only this status: ${TODO_STATUSES.join(', ')}` },
    ready: { type: 'boolean', description: 'only todos a claim could take now, in claim order' },
    ...PAGE_FLAGS,
  },
  run(ctx) {
    const a = ctx.args;
    const status = a.str('status');
    if (status !== undefined && !TODO_STATUSES.includes(status as TodoStatus)) {
      throw new InvalidInputError(`--status must be one of ${TODO_STATUSES.join(', ')}`);
    }
    const goalId = a.id('goal');
    const page = pageOf(a);
    const { todos, more, now } = ctx.kernel().read((db, now) => {
      if (goalId) getGoal(db, goalId);
      const filter = { goalId, status: status as TodoStatus | undefined, ready: a.bool('ready'), offset: page.offset };
      const found =
        page.limit === undefined
          ? { todos: listTodos(db, iso(now), filter), more: 0 }
          : todoPage(db, iso(now), { ...filter, limit: page.limit });
      return { ...found, now };
    });
    const text = () => {
      const p = new Painter(ctx.color);
      const lines = list(todos, (t) => todoLine(p, t, now), 'No todos match.');
      const command = ['loopx todo list', goalId && `--goal ${goalId}`, status && `--status ${status}`, a.bool('ready') && '--ready']
        .filter(Boolean)
        .join(' ');
      return more ? `${lines}\n${moreLine(more, page, command)}` : lines;
    };
    return { data: todos.map(lean), more, text };
  },
};

import type { Command } from '../command';
import { killTodo } from '../../kernel/ops/todos';
import { parseId } from '../../kernel/validate';
import { Painter, todoLine } from '../format';

export const todoKill: Command = {
  name: ['todo', 'kill'],
  summary: 'drop a todo for good (pending gates and a waiting monitor on it are cancelled)',
  mutates: true,
  positionals: [{ name: 'ID', description: 'todo id', required: true }],
  flags: {
    reason: { type: 'string', value: 'R', required: true, description: 'why it will not be done' },
    'end-series': { type: 'boolean', description: 'a recurring todo: add no next occurrence (otherwise the next is scheduled)' },
  },
  run(ctx) {
    const todo = killTodo(ctx.kernel(), parseId('todo', ctx.args.positionals[0]), ctx.args.str('reason') as string, { endSeries: ctx.args.bool('end-series') });
    return { data: todo, text: `Killed ${todoLine(new Painter(ctx.color), todo, Date.now())}` };
  },
};

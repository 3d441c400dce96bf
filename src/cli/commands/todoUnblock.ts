import type { Command } from '../command';
import { unblockTodo } from '../../kernel/ops/todos';
import { parseId } from '../../kernel/validate';
import { Painter, todoLine } from '../format';

export const todoUnblock: Command = {
  name: ['todo', 'unblock'],
  summary: 'reopen a blocked todo',
  mutates: true,
  positionals: [{ name: 'ID', description: 'todo id', required: true }],
  flags: { note: { type: 'string', value: 'N', description: 'what changed; becomes the continuation' } },
  run(ctx) {
    const todo = unblockTodo(ctx.kernel(), parseId('todo', ctx.args.positionals[0]), ctx.args.str('note'));
    return { data: todo, text: `Unblocked ${todoLine(new Painter(ctx.color), todo, Date.now())}` };
  },
};

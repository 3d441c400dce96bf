import type { Command } from '../command';
import { blockTodo } from '../../kernel/todos/todos';
import { parseId } from '../../kernel/validate';
import { Painter, todoLine } from '../format';

export const todoBlock: Command = {
  name: ['todo', 'block'],
  summary: 'mark a todo you hold as blocked, with the reason a human needs to see',
  needsAgent: true,
  mutates: true,
  storeOnly: true,
  positionals: [{ name: 'ID', description: 'todo id', required: true }],
  flags: { reason: { type: 'string', value: 'R', required: true, description: 'what is in the way and what would unblock it' } },
  run(ctx) {
    const todo = blockTodo(ctx.kernel(), parseId('todo', ctx.args.positionals[0]), ctx.args.str('reason') as string);
    return { data: todo, text: `Blocked ${todoLine(new Painter(ctx.color), todo, Date.now())}` };
  },
};

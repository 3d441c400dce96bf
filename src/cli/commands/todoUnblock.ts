import type { Command } from '../command';
import { unblockTodo } from '../../kernel/todos/todos';
import { parseId } from '../../kernel/validate';
import { Painter, todoLine } from '../format';
import { getTodo } from '../../kernel/todos/todoQueries';

export const todoUnblock: Command = {
  name: ['todo', 'unblock'],
  summary: 'reopen a blocked todo (humans only, in an interactive terminal: you type the todo id to confirm)',
  humanOnly: true,
  mutates: true,
  positionals: [{ name: 'ID', description: 'todo id', required: true }],
  flags: { note: { type: 'string', value: 'N', description: 'what changed; becomes the continuation' } },
  run(ctx) {
    const id = parseId('todo', ctx.args.positionals[0]);
    const kernel = ctx.kernel();
    const todo = kernel.read((db) => getTodo(db, id));
    const human = ctx.confirmHuman(`unblock todo ${id}`, id, [todo.title, `${todo.status}${todo.reason ? `: ${todo.reason}` : ''}`]);
    const unblocked = unblockTodo(kernel.as(human), id, ctx.args.str('note'));
    return { data: unblocked, text: `Unblocked ${todoLine(new Painter(ctx.color), unblocked, Date.now())}` };
  },
};

import type { Command } from '../command';
import { killTodo } from '../../kernel/todos/todos';
import { parseId } from '../../kernel/validate';
import { Painter, todoLine } from '../format';
import { getTodo } from '../../kernel/todos/todoQueries';
import { pendingGateIds } from '../../kernel/gates/gateQueries';

export const todoKill: Command = {
  name: ['todo', 'kill'],
  summary:
    'drop a todo for good (pending gates and a waiting monitor on it are cancelled: with pending gates, only a human who types the todo id)',
  mutates: true,
  positionals: [{ name: 'ID', description: 'todo id', required: true }],
  flags: {
    reason: { type: 'string', value: 'R', required: true, description: 'why it will not be done' },
    'end-series': { type: 'boolean', description: 'a recurring todo: add no next occurrence (otherwise the next is scheduled)' },
  },
  run(ctx) {
    const id = parseId('todo', ctx.args.positionals[0]);
    let kernel = ctx.kernel();
    if (ctx.canConfirm) {
      // Killing cancels pending gates, which is deciding them: a human confirms that; the kernel refuses it otherwise.
      const { todo, gates } = kernel.read((db) => ({ todo: getTodo(db, id), gates: pendingGateIds(db, id) }));
      if (gates.length > 0)
        kernel = kernel.as(ctx.confirmHuman(`kill todo ${id} and cancel its pending gate ${gates.join(', ')}`, id, [todo.title]));
    }
    const todo = killTodo(kernel, id, ctx.args.str('reason') as string, { endSeries: ctx.args.bool('end-series') });
    return { data: todo, text: `Killed ${todoLine(new Painter(ctx.color), todo, Date.now())}` };
  },
};

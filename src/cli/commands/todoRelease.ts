import type { Command } from '../command';
import { releaseTodo } from '../../kernel/todos/claims';
import { parseId } from '../../kernel/validate';
import { Painter, todoLine } from '../format';

export const todoRelease: Command = {
  name: ['todo', 'release'],
  summary: 'give a todo back unfinished; the note tells the next turn where to pick up',
  needsAgent: true,
  mutates: true,
  storeOnly: true,
  positionals: [{ name: 'ID', description: 'todo id', required: true }],
  flags: { note: { type: 'string', value: 'N', description: 'continuation: what the next turn should do' } },
  examples: ['loopx todo release T3 --note "parser done; wire it into the CLI next"'],
  run(ctx) {
    const todo = releaseTodo(ctx.kernel(), parseId('todo', ctx.args.positionals[0]), { note: ctx.args.str('note') });
    return { data: todo, text: `Released ${todoLine(new Painter(ctx.color), todo, Date.now())}` };
  },
};

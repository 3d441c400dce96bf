import type { Command } from '../command';
import { renewTodo, DEFAULT_LEASE_SECONDS } from '../../kernel/todos/claims';
import { formatDuration } from '../../kernel/time';
import { parseId } from '../../kernel/validate';
import { Painter, todoLine } from '../format';

export const todoRenew: Command = {
  name: ['todo', 'renew'],
  summary: 'extend the lease on a todo you hold',
  needsAgent: true,
  mutates: true,
  storeOnly: true,
  positionals: [{ name: 'ID', description: 'todo id', required: true }],
  flags: {
    lease: {
      type: 'duration',
      value: 'DURATION',
      description: `new lease length from now (default ${formatDuration(DEFAULT_LEASE_SECONDS)})`,
    },
  },
  run(ctx) {
    const todo = renewTodo(ctx.kernel(), parseId('todo', ctx.args.positionals[0]), { leaseSeconds: ctx.args.num('lease') });
    return { data: todo, text: `Renewed ${todoLine(new Painter(ctx.color), todo, Date.now())}` };
  },
};

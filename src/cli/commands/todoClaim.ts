import type { Command } from '../command';
import { InvalidInputError } from '../../kernel/errors';
import { claimNext, claimTodo, DEFAULT_LEASE_SECONDS, MAX_LEASE_SECONDS } from '../../kernel/todos/claims';
import { formatDuration } from '../../kernel/time';
import { parseId } from '../../kernel/validate';
import { Painter, todoDetail } from '../format';

export const todoClaim: Command = {
  name: ['todo', 'claim'],
  summary: 'claim a todo (by id, or the next ready one) with a lease',
  description: 'Claiming a todo you already hold extends its lease. A lapsed lease may be claimed by anyone.',
  needsAgent: true,
  mutates: true,
  storeOnly: true,
  positionals: [{ name: 'ID', description: 'todo id, e.g. T3 (or use --next)' }],
  flags: {
    next: { type: 'boolean', description: 'claim the next ready todo (highest priority, oldest first)' },
    goal: { type: 'string', value: 'G', description: 'with --next: only this goal' },
    lease: {
      type: 'duration',
      value: 'DURATION',
      description: `lease length, e.g. 30m (default ${formatDuration(DEFAULT_LEASE_SECONDS)}, at most ${MAX_LEASE_SECONDS / 3600}h)`,
    },
  },
  examples: ['loopx todo claim --next --goal G1 --json', 'loopx todo claim T3 --lease 1h'],
  run(ctx) {
    const a = ctx.args;
    const id = a.positionals[0];
    if ((id === undefined) === !a.bool('next'))
      throw new InvalidInputError('give a todo ID or --next (one of them)', 'see: loopx todo claim --help');
    if (a.has('goal') && !a.bool('next')) throw new InvalidInputError('--goal only goes with --next');
    const leaseSeconds = a.num('lease');
    const claim = a.bool('next')
      ? claimNext(ctx.kernel(), { goalId: a.id('goal'), leaseSeconds })
      : claimTodo(ctx.kernel(), parseId('todo', id), { leaseSeconds });
    const verb = claim.renewed ? 'Renewed your claim on' : 'Claimed';
    const lease = formatDuration(leaseSeconds ?? DEFAULT_LEASE_SECONDS);
    return {
      data: claim.todo,
      text: `${verb} ${claim.todo.id} for ${lease}.\n${todoDetail(new Painter(ctx.color), claim.todo, Date.now())}`,
    };
  },
};

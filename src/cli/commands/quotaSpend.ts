import type { Command } from '../command';
import { spendQuota } from '../../kernel/goals/quota';
import { parseId } from '../../kernel/validate';

export const quotaSpend: Command = {
  name: ['quota', 'spend'],
  summary: 'record one quota slot for a turn id (once per id; refused when the budget is used up)',
  description: "For turns run outside loopx: pass your runner's own turn id. Spending the same id again changes nothing.",
  mutates: true,
  flags: {
    goal: { type: 'string', value: 'G', required: true, description: 'the goal' },
    turn: { type: 'string', value: 'ID', required: true, description: 'the turn id (any string without spaces, up to 128 characters)' },
  },
  run(ctx) {
    const result = spendQuota(ctx.kernel(), parseId('goal', ctx.args.str('goal')), ctx.args.str('turn') as string);
    const q = result.quota;
    const head = result.spent ? 'Spent one slot' : 'Already spent for this turn; nothing changed';
    return { data: result, text: `${head}: ${q.spent}/${q.turnsPerWindow} used, ${q.remaining} left.` };
  },
};

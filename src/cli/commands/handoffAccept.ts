import type { Command } from '../command';
import { acceptHandoff } from '../../kernel/handoffs/handoffs';
import { parseId } from '../../kernel/validate';

export const handoffAccept: Command = {
  name: ['handoff', 'accept'],
  summary: 'accept a handoff offered to you: the claim moves to you with a fresh lease',
  needsAgent: true,
  mutates: true,
  storeOnly: true,
  positionals: [{ name: 'ID', description: 'handoff id, e.g. H1', required: true }],
  run(ctx) {
    const accepted = acceptHandoff(ctx.kernel(), parseId('handoff', ctx.args.positionals[0]));
    return {
      data: accepted,
      text: `Accepted ${accepted.id}: you now hold ${accepted.todoId}.\nFrom ${accepted.from}: ${accepted.summary}`,
    };
  },
};

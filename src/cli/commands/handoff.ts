import type { Command } from '../command';
import { offerHandoff } from '../../kernel/handoffs/handoffs';
import { parseId } from '../../kernel/validate';

export const handoff: Command = {
  name: ['handoff'],
  summary: 'offer a todo you hold to another agent, with what is done and what is left',
  description: 'You keep the claim until the other agent runs `loopx handoff accept ID`.',
  needsAgent: true,
  mutates: true,
  storeOnly: true,
  positionals: [{ name: 'TODO', description: 'todo id you hold', required: true }],
  flags: {
    to: { type: 'string', value: 'AGENT', required: true, description: 'the agent taking over' },
    summary: { type: 'string', value: 'S', required: true, description: 'where things stand' },
    done: { type: 'string', value: 'TEXT', description: 'what is finished' },
    pending: { type: 'string', value: 'TEXT', description: 'what is left' },
    permission: { type: 'string', value: 'TEXT', repeat: true, description: 'a permission the next agent will need (repeatable)' },
  },
  examples: ['loopx handoff T3 --to claude --summary "parser works" --pending "wire into CLI" --permission "network access"'],
  run(ctx) {
    const a = ctx.args;
    const offer = offerHandoff(ctx.kernel(), parseId('todo', a.positionals[0]), {
      to: a.str('to') as string,
      summary: a.str('summary') as string,
      done: a.str('done'),
      pending: a.str('pending'),
      permissions: a.list('permission'),
    });
    return {
      data: offer,
      text: `Offered ${offer.todoId} to ${offer.to} as handoff ${offer.id}. They accept with: loopx handoff accept ${offer.id}`,
    };
  },
};

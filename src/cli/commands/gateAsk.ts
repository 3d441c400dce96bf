import type { Command } from '../command';
import { askGate } from '../../kernel/gates/gates';
import { gateLine, Painter } from '../format';

export const gateAsk: Command = {
  name: ['gate', 'ask'],
  summary: 'ask a human to decide before a todo (or the goal) may go on',
  description: 'A pending gate on a todo blocks claiming and shipping it; on a goal, should-run answers no until it is decided.',
  mutates: true,
  storeOnly: true,
  flags: {
    todo: { type: 'string', value: 'T', description: 'the todo that waits for the decision' },
    goal: { type: 'string', value: 'G', description: 'or the whole goal' },
    question: { type: 'string', value: 'Q', required: true, description: 'the decision needed, with what you recommend' },
  },
  examples: ['loopx gate ask --todo T4 --question "Drop the legacy v1 endpoint? Recommend yes: no traffic in 30 days."'],
  run(ctx) {
    const a = ctx.args;
    const gate = askGate(ctx.kernel(), {
      todoId: a.id('todo'),
      goalId: a.id('goal'),
      question: a.str('question') as string,
    });
    return {
      data: gate,
      text: `Asked ${gateLine(new Painter(ctx.color), gate, Date.now())}\nA human decides with: loopx gate approve ${gate.id} | loopx gate reject ${gate.id}`,
    };
  },
};

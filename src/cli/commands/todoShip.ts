import type { Command } from '../command';
import { parseId } from '../../kernel/validate';
import { Painter, todoLine } from '../format';
import { shipTodo } from '../../kernel/todos/todos';

export const todoShip: Command = {
  name: ['todo', 'ship'],
  summary: 'ship a todo you hold; refused without evidence or while a gate is pending',
  description: 'Evidence recorded earlier with `loopx evidence add --todo ID` counts; --evidence records more in the same step.',
  needsAgent: true,
  mutates: true,
  storeOnly: true,
  positionals: [{ name: 'ID', description: 'todo id', required: true }],
  flags: {
    evidence: { type: 'string', value: 'TEXT', description: 'what was done and how it was checked' },
    artifact: {
      type: 'string',
      value: 'PATH',
      repeat: true,
      description: 'workspace file backing the evidence; its SHA-256 is recorded (repeatable)',
    },
    validation: {
      type: 'string',
      value: 'TEXT',
      description: 'what you checked, for the reviewer when the goal has review (default: the evidence)',
    },
  },
  examples: ['loopx todo ship T3 --evidence "npm test: 48 passed" --artifact test-results/report.txt'],
  run(ctx) {
    const todo = shipTodo(ctx.kernel(), parseId('todo', ctx.args.positionals[0]), {
      evidence: ctx.args.str('evidence'),
      artifacts: ctx.args.list('artifact'),
      validation: ctx.args.str('validation'),
    });
    const said = todo.status === 'in_review' ? `Sent for review (round ${todo.reviewRound})` : 'Shipped';
    return { data: todo, text: `${said} ${todoLine(new Painter(ctx.color), todo, Date.now())}` };
  },
};

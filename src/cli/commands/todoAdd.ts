import type { Command } from '../command';
import { addTodo } from '../../kernel/ops/todos';
import { parseId } from '../../kernel/validate';
import { Painter, todoLine } from '../format';

export const todoAdd: Command = {
  name: ['todo', 'add'],
  summary: 'add a todo to a goal',
  mutates: true,
  flags: {
    goal: { type: 'string', value: 'G', required: true, description: 'the goal it belongs to' },
    title: { type: 'string', value: 'T', required: true, description: 'short title (one line)' },
    detail: { type: 'string', value: 'D', description: 'acceptance: how anyone can tell it is done' },
    priority: { type: 'int', value: 'P', description: '0 (highest) to 3; default 2' },
    'depends-on': { type: 'string', value: 'TODO', repeat: true, description: 'a todo that must ship first (repeatable)' },
    check: { type: 'string', value: 'CMD', description: "acceptance check (humans only; default: the goal's): ship needs a passing kernel run of it" },
  },
  examples: ['loopx todo add --goal G1 --title "Parse headers" --detail "tests/headers pass" --priority 1 --depends-on T1'],
  run(ctx) {
    const a = ctx.args;
    const todo = addTodo(ctx.kernel(), {
      goalId: parseId('goal', a.str('goal')),
      title: a.str('title') as string,
      detail: a.str('detail'),
      priority: a.num('priority'),
      dependsOn: a.list('depends-on').map((d) => parseId('todo', d)),
      check: a.str('check'),
    });
    return { data: todo, text: `Added ${todoLine(new Painter(ctx.color), todo, Date.now())}` };
  },
};

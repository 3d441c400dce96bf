import type { Command, CommandContext } from '../command';
import type { Actor } from '../../kernel/events/eventTypes';
import { setGoalCheck, setTodoCheck } from '../../kernel/checks/checks';
import { InvalidInputError } from '../../kernel/errors';
import { parseId } from '../../kernel/validate';
import { goalLine, Painter, todoLine } from '../format';

const flags = {
  check: { type: 'string', value: 'CMD', description: 'the new acceptance check (a shell command run from the workspace root)' },
  clear: { type: 'boolean', description: 'remove the check' },
} as const;

function newCheck(args: { str(n: string): string | undefined; bool(n: string): boolean }): string | null {
  const check = args.str('check');
  if ((check === undefined) === !args.bool('clear')) throw new InvalidInputError('give exactly one of --check CMD or --clear');
  return check ?? null;
}

/** The person types the id to set or clear a check: the one decision an agent may never make for them. */
function confirmCheck(ctx: CommandContext, kind: 'goal' | 'todo', id: string, check: string | null): Actor {
  return ctx.confirmHuman(
    `${check === null ? 'clear' : 'set'} the acceptance check of ${kind} ${id}`,
    id,
    check === null ? [] : [`check: ${check}`],
  );
}

export const goalSetCheck: Command = {
  name: ['goal', 'set-check'],
  summary: "set or clear a goal's acceptance check (humans only): its todos ship only after loopx ran it, passing",
  humanOnly: true,
  mutates: true,
  positionals: [{ name: 'ID', description: 'goal id', required: true }],
  flags,
  examples: ['loopx goal set-check G1 --check "npm test"', 'loopx goal set-check G1 --clear'],
  run(ctx) {
    const id = parseId('goal', ctx.args.positionals[0]);
    const check = newCheck(ctx.args);
    const human = confirmCheck(ctx, 'goal', id, check);
    const goal = setGoalCheck(ctx.kernel().as(human), id, check);
    return { data: goal, text: `${goal.check ? `Check \`${goal.check}\`` : 'No check'} for ${goalLine(new Painter(ctx.color), goal)}` };
  },
};

export const todoSetCheck: Command = {
  name: ['todo', 'set-check'],
  summary: "set or clear a todo's own acceptance check (humans only); without one, its goal's applies",
  humanOnly: true,
  mutates: true,
  positionals: [{ name: 'ID', description: 'todo id', required: true }],
  flags,
  examples: ['loopx todo set-check T4 --check "npm test -- parser"'],
  run(ctx) {
    const id = parseId('todo', ctx.args.positionals[0]);
    const check = newCheck(ctx.args);
    const human = confirmCheck(ctx, 'todo', id, check);
    const todo = setTodoCheck(ctx.kernel().as(human), id, check);
    return {
      data: todo,
      text: `${todo.check ? `Check \`${todo.check}\`` : 'No own check'} for ${todoLine(new Painter(ctx.color), todo, Date.now())}`,
    };
  },
};

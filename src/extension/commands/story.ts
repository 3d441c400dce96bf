import type { CommandDefinition } from './context';
import { kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { parseArg } from './args';
import { resolveGoal } from './pickers';

/** Open Goal Story: the goal's timeline and charts beside the board (the goal of the view item, else a pick). */
export const openStory: CommandDefinition = {
  id: COMMANDS.openStory,
  async run(ctx, arg) {
    kernelOf(ctx);
    const given = parseArg(arg);
    // From the board or the palette without a goal: the story opens on the active goal and has its own goal picker.
    const goal = given.kind === 'none' ? undefined : await resolveGoal(ctx, arg);
    if (given.kind !== 'none' && !goal) return undefined;
    return ctx.story.show(ctx, goal?.id);
  },
};

import type { CommandDefinition } from './context';
import { COMMANDS } from './commandIds';
import { parseArg } from './args';
import { EXIT, LoopxError } from '../../kernel/errors';
import { GROUPS, type TodoGroup } from '../views/goalsTree';

export const openBoard: CommandDefinition = {
  id: COMMANDS.openBoard,
  run(ctx) {
    ctx.session.requireKernel();
    return ctx.board.show(ctx);
  },
};

const GROUP_IDS: readonly string[] = GROUPS.map((g) => g.id);

/** The Goals tree's "… N more" row: shows the next page of that group. Arguments come from the row, checked anyway. */
export const showMoreTodos: CommandDefinition = {
  id: COMMANDS.showMoreTodos,
  run(ctx, arg) {
    const page = parseArg(arg);
    if (page.kind !== 'page' || !GROUP_IDS.includes(page.group)) {
      throw new LoopxError('invalid_argument', 'Show More Todos is run from a "… more" row in the Goals view', EXIT.invalidInput);
    }
    ctx.goalsTree.showMore({ goalId: page.goalId, group: page.group as TodoGroup });
  },
};

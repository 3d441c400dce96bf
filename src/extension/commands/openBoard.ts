import { BoardPanel } from '../board/boardPanel';
import type { CommandDefinition } from './context';
import { COMMANDS } from './commandIds';
import { LoopxError } from '../../kernel/errors';
import { GROUPS, type TodoGroup } from '../views/todoPresentation';

export const openBoard: CommandDefinition = {
  id: COMMANDS.openBoard,
  run(ctx) {
    ctx.session.requireKernel();
    return BoardPanel.show(ctx, ctx.extensionUri);
  },
};

const GROUP_IDS: readonly string[] = GROUPS.map((g) => g.id);

/** The Goals tree's "… N more" row: shows the next page of that group. Arguments come from the row, checked anyway. */
export const showMoreTodos: CommandDefinition = {
  id: COMMANDS.showMoreTodos,
  run(ctx, arg) {
    const { goalId, group } = (arg ?? {}) as { goalId?: unknown; group?: unknown };
    if (typeof goalId !== 'string' || typeof group !== 'string' || !GROUP_IDS.includes(group)) {
      throw new LoopxError('invalid_argument', 'Show More Todos is run from a "… more" row in the Goals view', 2);
    }
    ctx.goalsTree?.showMore({ goalId, group: group as TodoGroup });
  },
};

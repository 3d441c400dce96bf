import { BoardPanel } from '../board/boardPanel';
import type { CommandDefinition } from './context';
import { COMMANDS } from './commandIds';

export const openBoard: CommandDefinition = {
  id: COMMANDS.openBoard,
  run(ctx) {
    ctx.session.requireKernel();
    return BoardPanel.show(ctx, ctx.extensionUri);
  },
};

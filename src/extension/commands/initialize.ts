import * as vscode from 'vscode';
import type { CommandDefinition } from './context';
import { COMMANDS } from './commandIds';

export const initialize: CommandDefinition = {
  id: COMMANDS.initialize,
  run(ctx) {
    const { created, gitignore } = ctx.session.initialize();
    ctx.log.info(`${created ? 'created' : 'reused'} ${ctx.session.root}/.loopx; .gitignore: ${gitignore}`);
    const git =
      gitignore === 'added' ? ' It was added to .gitignore.' : gitignore === 'present' ? ' .gitignore already keeps it out of git.' : '';
    void vscode.window
      .showInformationMessage(
        created
          ? `LoopX: initialized .loopx/ in this workspace.${git}`
          : `LoopX: this workspace already had a store; it was reused unchanged.${git}`,
        'New Goal',
      )
      .then((choice) => choice && vscode.commands.executeCommand(COMMANDS.newGoal));
    return created;
  },
};

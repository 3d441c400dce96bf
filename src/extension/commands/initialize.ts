import * as vscode from 'vscode';
import type { CommandDefinition } from './context';
import { COMMANDS } from './commandIds';

export const initialize: CommandDefinition = {
  id: COMMANDS.initialize,
  run(ctx) {
    const { created } = ctx.session.initialize();
    ctx.log.info(`${created ? 'created' : 'reused'} ${ctx.session.root}/.loopx`);
    void vscode.window
      .showInformationMessage(
        created ? 'LoopX: initialised .loopx/ in this workspace.' : 'LoopX: this workspace already had a store; it was reused unchanged.',
        'New Goal',
      )
      .then((choice) => choice && vscode.commands.executeCommand(COMMANDS.newGoal));
    return created;
  },
};

import * as vscode from 'vscode';
import type { CommandDefinition } from './context';
import { COMMANDS } from './commandIds';

/** The walkthrough package.json contributes (publisher.name#id). */
export const WALKTHROUGH_ID = 'loopx.loopx#loopx.gettingStarted';

export const getStarted: CommandDefinition = {
  id: COMMANDS.getStarted,
  run() {
    return vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false);
  },
};

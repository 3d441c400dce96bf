import * as vscode from 'vscode';
import { COMMANDS } from './commands/commandIds';
import type { Folders } from './folders';
import { loopxSetting } from './loopxSettings';

export const SHOWN_KEY = 'loopx.viewShownOnce';
export const OPEN_BOARD_SETTING = 'loopx.openBoardOnStartup';

/**
 * Where to look: the first time a window opens a workspace that has a store, the LoopX view comes to the front
 * (a workspace opened on the Explorer says nothing about LoopX otherwise); with `loopx.openBoardOnStartup` the
 * board opens too, every time. Both only when the store opened.
 */
export async function showLoopxOnOpen(folders: Folders, state: vscode.Memento): Promise<void> {
  if (folders.withStore.length === 0) return;
  if (!state.get<boolean>(SHOWN_KEY)) {
    await state.update(SHOWN_KEY, true);
    await vscode.commands.executeCommand('workbench.view.extension.loopx');
  }
  if (loopxSetting<boolean>(OPEN_BOARD_SETTING)) await vscode.commands.executeCommand(COMMANDS.openBoard);
}

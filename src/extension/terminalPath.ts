import * as vscode from 'vscode';
import { delimiter, join } from 'node:path';

export const ADD_TO_PATH_SETTING = 'loopx.terminal.addCliToPath';

/**
 * Puts this extension's bundled `loopx` first on PATH in integrated terminals, so an agent started by hand in any
 * VS Code terminal (not only through Run Turn) reaches the same store with the same CLI version as the extension.
 * The setting turns it off; terminals already open are marked stale by VS Code and pick it up when relaunched.
 */
export function shareCliOnTerminalPath(context: Pick<vscode.ExtensionContext, 'environmentVariableCollection' | 'extensionUri'>): vscode.Disposable {
  const collection = context.environmentVariableCollection;
  const binDir = join(context.extensionUri.fsPath, 'bin');
  const apply = () => {
    collection.clear();
    if (!vscode.workspace.getConfiguration().get<boolean>(ADD_TO_PATH_SETTING, true)) return;
    collection.description = 'Puts the loopx CLI on PATH, so agents in this terminal can write back to the LoopX store.';
    collection.prepend('PATH', `${binDir}${delimiter}`);
  };
  apply();
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(ADD_TO_PATH_SETTING)) apply();
  });
}

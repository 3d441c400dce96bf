import * as vscode from 'vscode';
import { COMMANDS } from './commands/commandIds';
import { Log } from './util/log';

/**
 * Activation in an editor LoopX cannot run in (runtimeSupport.ts): nothing starts (no store, no launcher, no terminal
 * environment, no views' data); the Goals view says why; every LoopX command answers with the same sentences, so a
 * click never ends in "command not found".
 */
export function refuseToStart(context: vscode.ExtensionContext, problem: string): void {
  const log = new Log();
  context.subscriptions.push(log);
  log.error(problem);
  void vscode.commands.executeCommand('setContext', 'loopx.cannotStart', true);
  const say = () =>
    vscode.window.showErrorMessage(problem, 'Show Logs').then((choice) => {
      if (choice === 'Show Logs') log.show();
    });
  for (const id of Object.values(COMMANDS)) {
    context.subscriptions.push(vscode.commands.registerCommand(id, () => (id === COMMANDS.showLogs ? log.show() : void say())));
  }
  void say();
}

import * as vscode from 'vscode';
import { LoopxApp } from './app';
import { Log } from './util/log';
import { installCliLauncher, shareCliOnTerminalPath } from './bundledCli';
import { shareTeamDatabaseSetting } from './teamSetting';
import { showLoopxOnOpen } from './firstOpen';
import { loadNodeSqlite } from '../kernel/db/nodeSqliteDriver';
import { whyLoopxCannotStart } from './runtimeSupport';
import { refuseToStart } from './cannotStart';
import { CliOnPathNotice } from './cliOnPathNotice';
import { join } from 'node:path';
import { registerDecideLinks, takePendingDecision } from './dashboard/decideLinks';
import { warnOfIgnoredSettings } from './loopxSettings';

let app: LoopxApp | undefined;

/** Thin entry point: one composition root, disposed with the extension. */
export function activate(context: vscode.ExtensionContext): LoopxApp | undefined {
  const started = performance.now();
  const problem = whyLoopxCannotStart({
    vscodeVersion: vscode.version,
    node: process.versions.node,
    hasNodeSqlite: loadNodeSqlite() !== null,
  });
  if (problem) {
    refuseToStart(context, problem);
    return undefined;
  }
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length === 0) {
    void vscode.commands.executeCommand('setContext', 'loopx.noFolder', true);
    // A window without a folder still takes the dashboard's links: it opens the project's folder for them.
    const log = new Log();
    context.subscriptions.push(
      log,
      registerDecideLinks(context.globalState, () => [], log),
    );
    return undefined;
  }
  const log = new Log();
  context.subscriptions.push(log);
  try {
    context.subscriptions.push(shareTeamDatabaseSetting(context.environmentVariableCollection, log, () => app?.teamStoreSettingChanged()));
    const cli = installCliLauncher(context.globalStorageUri.fsPath, context.extensionUri.fsPath, log);
    context.subscriptions.push(shareCliOnTerminalPath(context.environmentVariableCollection, cli));
    app = new LoopxApp(folders, log, {
      extensionUri: context.extensionUri,
      workspaceState: context.workspaceState,
      cliCommand: cli.command,
    });
    context.subscriptions.push(app);
    // The dashboard's decide links: this window's folder shows the decision; another's opens in a new window.
    const roots = () => app?.folders.all.map((f) => f.root) ?? [];
    context.subscriptions.push(registerDecideLinks(context.globalState, roots, log));
    void takePendingDecision(context.globalState, roots()).catch((error: unknown) => log.warn(`a decision link: ${String(error)}`));
    app.activationMs = performance.now() - started;
    log.info(`activated in ${app.activationMs.toFixed(1)} ms (VS Code ${vscode.version}, Node ${process.versions.node})`);
    showLoopxOnOpen(app.folders, context.workspaceState).catch((error: unknown) =>
      log.warn(`could not show the LoopX view: ${String(error)}`),
    );
    lookAtCliOnPath(context, log, folders[0]?.uri.fsPath ?? '');
    context.subscriptions.push(warnOfIgnoredSettings(loopxSettingKeys(context), log));
    return app;
  } catch (error) {
    log.error('activation failed', error);
    const message = error instanceof Error ? error.message : String(error);
    void vscode.window.showErrorMessage(`LoopX could not start: ${message}`, 'Show Logs').then((choice) => {
      if (choice === 'Show Logs') log.show();
    });
    throw error;
  }
}

/**
 * A few seconds after start-up (it runs each loopx on PATH, and start-up is the person's), and again when the
 * workspace is trusted: whether the loopx a person's own terminals run is another version (cliOnPathNotice.ts).
 */
function lookAtCliOnPath(context: vscode.ExtensionContext, log: Log, workspace: string): void {
  const notice = new CliOnPathNotice(context.globalState, log, {
    workspace,
    ownCli: join(context.extensionUri.fsPath, 'bin', 'loopx'),
  });
  const look = () => notice.look().catch((error: unknown) => log.warn(`could not ask the loopx on PATH: ${String(error)}`));
  const soon = setTimeout(look, 5000);
  context.subscriptions.push({ dispose: () => clearTimeout(soon) }, vscode.workspace.onDidGrantWorkspaceTrust(look));
}

export function deactivate(): void {
  app = undefined;
}

/** Every setting LoopX contributes (package.json), by its full key. */
function loopxSettingKeys(context: vscode.ExtensionContext): string[] {
  const contributes = (context.extension.packageJSON as { contributes?: { configuration?: { properties?: object } } }).contributes;
  return Object.keys(contributes?.configuration?.properties ?? {});
}

import * as vscode from 'vscode';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { cliLauncher } from './cliLauncher';
import type { Log } from './util/log';
import { loopxSetting } from './loopxSettings';

export const ADD_TO_PATH_SETTING = 'loopx.terminal.addCliToPath';

/** The `loopx` agents in this editor's terminals run: where it is, and the folder to put on PATH. */
export interface BundledCli {
  command: string;
  binDir: string;
}

/**
 * Writes a small `loopx` launcher into the extension's global storage that runs the bundled CLI on the editor's own
 * runtime (cliLauncher.ts): Electron acting as Node in desktop VS Code and Cursor, code-server's Node here. So agents
 * in terminals need no Node install, and get the same SQLite driver as the extension (node:sqlite: the .vsix carries
 * no native binary). A shell script, or loopx.cmd on Windows. Rewritten only when the extension or the editor moved.
 * When the storage is not writable, the bundled `bin/loopx` (run by whatever `node` is on PATH) is used instead.
 */
export function installCliLauncher(
  storageDir: string,
  extensionDir: string,
  log: Log,
  runtime = process.execPath,
  platform: NodeJS.Platform = process.platform,
): BundledCli {
  const bundled = join(extensionDir, 'bin', 'loopx');
  const launcher = cliLauncher(runtime, bundled, platform);
  const command = join(storageDir, 'bin', launcher.file);
  try {
    // The CLI, and beside it the sample agent Run Turn offers (sampleAgentCommand finds it next to the CLI).
    const sample = cliLauncher(runtime, join(extensionDir, 'bin', SAMPLE_AGENT), platform, SAMPLE_AGENT);
    for (const [file, content] of [
      [command, launcher.content],
      [join(storageDir, 'bin', sample.file), sample.content],
    ] as const) {
      if (readOr(file) !== content) {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, content);
      }
      if (platform !== 'win32') chmodSync(file, 0o755);
    }
    return { command, binDir: dirname(command) };
  } catch (error) {
    log.warn(`could not write the loopx launcher (${(error as Error).message}); terminals use ${bundled} with the node on PATH`);
    return { command: bundled, binDir: dirname(bundled) };
  }
}

const SAMPLE_AGENT = 'loopx-sample-agent';

/** The sample agent's launcher: beside the loopx a turn's prompt names (the launcher folder, or the bundled bin/). */
export function sampleAgentCommand(cliCommand: string): string {
  return join(dirname(cliCommand), SAMPLE_AGENT);
}

function readOr(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Puts that `loopx` first on PATH in integrated terminals, so an agent started by hand in any VS Code terminal (not
 * only through Run Turn) reaches the same store with the same CLI version as the extension. The setting turns it off;
 * terminals already open are marked stale by VS Code and pick it up when relaunched.
 */
export function shareCliOnTerminalPath(collection: vscode.GlobalEnvironmentVariableCollection, cli: BundledCli): vscode.Disposable {
  const apply = () => {
    // Only PATH: the same collection carries LOOPX_DATABASE_URL (teamSetting.ts).
    collection.delete('PATH');
    if (!(loopxSetting<boolean>(ADD_TO_PATH_SETTING) ?? true)) return;
    collection.description = 'Puts the loopx CLI on PATH, so agents in this terminal can write back to the LoopX store.';
    collection.prepend('PATH', `${cli.binDir}${delimiter}`);
  };
  apply();
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(ADD_TO_PATH_SETTING)) apply();
  });
}

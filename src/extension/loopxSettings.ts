import * as vscode from 'vscode';
import { basename } from 'node:path';
import { inAgentsReach } from '../kernel/agentReach';

/**
 * Every LoopX setting is read here, from where no agent writes. A setting decides what runs as the person: a host's
 * command (one without `{boundary}` runs its agent unsandboxed), turns started unattended, hooks and checks run. VS
 * Code takes a window's workspace settings from its `.code-workspace` file when one was opened, and a repository's
 * own workspace file sits in the workspace, where agents write (a folder's `.vscode/settings.json` is kept out of
 * every built-in host's reach; a workspace file cannot be: its name is the person's). So when the window's workspace
 * file is in an agent's reach (kernel/agentReach.ts inAgentsReach), its LoopX settings are not used: the user's
 * settings and the defaults are, and the person is told once (`warnOfIgnoredSettings`).
 */
export function loopxSetting<T>(key: string): T | undefined {
  const { config, name } = settingOf(key);
  if (!workspaceFileInAgentsReach()) return config.get<T>(name);
  const seen = config.inspect<T>(name);
  return seen?.globalValue ?? seen?.defaultValue;
}

/** A full key (`loopx.hosts.codex.command`) as VS Code reads it: its section's configuration and its last part. */
function settingOf(key: string): { config: vscode.WorkspaceConfiguration; name: string } {
  const dot = key.lastIndexOf('.');
  return { config: vscode.workspace.getConfiguration(key.slice(0, dot)), name: key.slice(dot + 1) };
}

/** The window's workspace file when an agent of a loopx workspace could have written it; undefined otherwise. */
export function workspaceFileInAgentsReach(): vscode.Uri | undefined {
  const file = vscode.workspace.workspaceFile;
  return file?.scheme === 'file' && inAgentsReach(file.fsPath) ? file : undefined;
}

/** The LoopX settings the window's workspace file sets that `loopxSetting` leaves unused (none when it is out of reach). */
export function ignoredWorkspaceSettings(keys: readonly string[]): string[] {
  if (!workspaceFileInAgentsReach()) return [];
  return keys.filter((key) => {
    const { config, name } = settingOf(key);
    return config.inspect(name)?.workspaceValue !== undefined;
  });
}

/**
 * Says once per window, in words, which LoopX settings of the workspace file are not used and where to put them
 * instead (its keys in the output log); again only when the file changes what it sets.
 */
export function warnOfIgnoredSettings(keys: readonly string[], log: { warn(message: string): void }): vscode.Disposable {
  let told = '';
  const check = () => {
    const ignored = ignoredWorkspaceSettings(keys);
    if (ignored.length === 0 || ignored.join() === told) return;
    told = ignored.join();
    // Some are ignored: the window's workspace file is in an agent's reach.
    const file = (vscode.workspace.workspaceFile as vscode.Uri).fsPath;
    log.warn(`${file} sets ${ignored.join(', ')}: not used, as agents can write that file`);
    const name = basename(file);
    void vscode.window
      .showWarningMessage(
        `LoopX does not use the LoopX settings in ${name}: the file is inside a LoopX workspace, where agents can write. ` +
          'Put them in your user settings, or open the folder itself instead of the workspace file.',
        'Open User Settings',
      )
      .then((choice) => choice && void vscode.commands.executeCommand('workbench.action.openSettings', '@ext:loopx.loopx'));
  };
  check();
  return vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('loopx') && check());
}

/**
 * The environment of a terminal LoopX opens to run something as the person (a turn's host, an install, a set-up
 * command). VS Code builds a terminal's from the window's, then the settings' (`terminal.integrated.env.*`), then the
 * one the terminal is opened with, then what extensions contribute (an activated venv's PATH). A window opened from a
 * workspace file in an agent's reach takes those settings from a file its agents write, and an `LD_PRELOAD` or
 * `NODE_OPTIONS` there would run their code as the person. So each variable that file sets is given back its value
 * from the person's own settings or the window's environment, or removed (null). `strictEnv` would do without the
 * settings too, but VS Code's remote terminals (code-server, SSH, containers) ignore it (microsoft/vscode#125389).
 */
export function terminalEnv(env: Record<string, string> = {}): { env: Record<string, string | null> } {
  if (!workspaceFileInAgentsReach()) return { env };
  const platform = process.platform === 'win32' ? 'windows' : process.platform === 'darwin' ? 'osx' : 'linux';
  const seen = vscode.workspace.getConfiguration('terminal.integrated.env').inspect<Record<string, string | null>>(platform);
  const kept = Object.fromEntries(
    Object.keys(seen?.workspaceValue ?? {}).map((key) => [key, seen?.globalValue?.[key] ?? process.env[key] ?? null]),
  );
  return { env: { ...kept, ...env } };
}

import * as vscode from 'vscode';
import { realpathSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import semverCompare from 'semver/functions/compare';
import semverValid from 'semver/functions/valid';
import { type CliOnPath, cliVersions } from '../runtime/cliVersions';
import { type InstallChannel, installChannelOf } from '../runtime/installChannel';
import { npmGlobalRootAsync, npmOnPath } from '../runtime/npmChannel';
import { LOOPX_VERSION } from '../shared/version';
import type { Log } from './util/log';
import { terminalEnv } from './loopxSettings';

const DISMISSED = 'loopx.cliOnPath.dismissed';
const UPDATE = 'Update It';
const INSTALL = 'Install';
const UPDATE_EXTENSION = 'Update the Extension';
const NOT_AGAIN = "Don't Show Again";

export interface CliOnPathOptions {
  /** Folders agents can write: a loopx there is never run (cliVersions). */
  workspace: string;
  /** The extension's own bin/loopx (not asked: its version is this one). */
  ownCli: string;
  env?: NodeJS.ProcessEnv;
  isTrusted?: () => boolean;
  /** What installs the update in a terminal (npm; a test names a stand-in). */
  npm?: string;
}

/** What one look found and said (the host tests read it). */
export interface CliOnPathLook {
  found: CliOnPath[];
  /** The differing loopx the notice named, or null when it said nothing. */
  named: CliOnPath | null;
}

/**
 * Says so when the `loopx` a person's own terminals run (the first on the editor's PATH: the extension puts its own
 * first only in VS Code's terminals) is another version than this extension: whichever is newer migrates a store,
 * and the other then refuses it (issue 45). Asks each loopx on PATH its version the way `loopx doctor` does, so only
 * in a trusted workspace (it runs programs), once per loopx and version a person has not dismissed. For an older
 * loopx installed with npm install -g it offers to install this version in a terminal, after a modal naming the
 * command; for a newer one, to update the extension. Every other channel gets words on how it is updated.
 */
export class CliOnPathNotice {
  constructor(
    private readonly memory: vscode.Memento,
    private readonly log: Log,
    private readonly options: CliOnPathOptions,
  ) {}

  async look(): Promise<CliOnPathLook> {
    const isTrusted = this.options.isTrusted ?? (() => vscode.workspace.isTrusted);
    if (!isTrusted()) return { found: [], named: null };
    const env = this.options.env ?? process.env;
    const found = await cliVersions(env.PATH ?? '', this.options.workspace, this.options.ownCli);
    const other = found.find((cli) => !cli.self && !cli.inWorkspace && cli.version !== null && cli.version !== LOOPX_VERSION);
    this.log.info(
      `loopx on PATH: ${found.length ? found.map((cli) => `${cli.path} (${cli.version ?? 'not asked'})`).join(', ') : 'none'}; this extension's is ${LOOPX_VERSION}`,
    );
    if (!other?.version) return { found, named: null };
    const key = `${other.path}@${other.version}`;
    if ((this.memory.get<string[]>(DISMISSED) ?? []).includes(key)) return { found, named: null };
    void this.say(other, other.version, key, env);
    return { found, named: other };
  }

  private async say(cli: CliOnPath, version: string, key: string, env: NodeJS.ProcessEnv): Promise<void> {
    const order = semverValid(version) && semverValid(LOOPX_VERSION) ? semverCompare(version, LOOPX_VERSION) : 0;
    const lead = `The loopx your terminals outside VS Code run (${cli.path}) is version ${version}; this LoopX extension is ${LOOPX_VERSION}.`;
    if (order > 0) {
      const picked = await vscode.window.showWarningMessage(
        `${lead} Once that loopx updates a workspace's store, the extension will refuse the store until the extension is updated too.`,
        UPDATE_EXTENSION,
        NOT_AGAIN,
      );
      if (picked === UPDATE_EXTENSION) await vscode.commands.executeCommand('workbench.extensions.search', '@updates loopx');
      if (picked === NOT_AGAIN) await this.dismiss(key);
      return;
    }
    const channel = await this.channelOf(cli.path, env);
    const why = `${lead} Once the extension updates a workspace's store, that loopx will refuse it until it is updated too.`;
    if (order < 0 && channel.kind === 'npm-global') {
      const picked = await vscode.window.showWarningMessage(why, UPDATE, NOT_AGAIN);
      if (picked === UPDATE) await this.installInTerminal(env);
      if (picked === NOT_AGAIN) await this.dismiss(key);
      return;
    }
    const picked = await vscode.window.showWarningMessage(`${why} ${HOW[channel.kind](channel)}`, NOT_AGAIN);
    if (picked === NOT_AGAIN) await this.dismiss(key);
  }

  /** After a modal naming the command: npm install -g loopx@<this version> in a terminal, its arguments never a shell line. */
  private async installInTerminal(env: NodeJS.ProcessEnv): Promise<void> {
    const args = ['install', '-g', `loopx@${LOOPX_VERSION}`];
    const confirmed = await vscode.window.showWarningMessage(
      `Install loopx ${LOOPX_VERSION} for your terminals?`,
      { modal: true, detail: `This runs npm ${args.join(' ')} in a terminal, with your npm and its registry.` },
      INSTALL,
    );
    if (confirmed !== INSTALL) return;
    const npm = this.options.npm ?? npmOnPath(env, this.options.workspace);
    if (!npm) {
      void vscode.window.showWarningMessage(`LoopX found no npm outside this workspace to install loopx ${LOOPX_VERSION} with.`);
      return;
    }
    vscode.window
      .createTerminal({ name: `LoopX: install loopx ${LOOPX_VERSION}`, shellPath: npm, shellArgs: args, ...terminalEnv() })
      .show();
  }

  private async dismiss(key: string): Promise<void> {
    await this.memory.update(DISMISSED, [...(this.memory.get<string[]>(DISMISSED) ?? []), key]);
  }

  /** The channel of the loopx at `path` (its package: two folders up from bin/loopx's real file). */
  private async channelOf(path: string, env: NodeJS.ProcessEnv): Promise<InstallChannel> {
    let root: string;
    try {
      root = dirname(dirname(realpathSync(path)));
    } catch {
      return { kind: 'unknown', root: path };
    }
    const globalRoot = basename(dirname(root)) === 'node_modules' ? await npmGlobalRootAsync(env, this.options.workspace) : null;
    return installChannelOf(root, () => globalRoot);
  }
}

/** How each other channel is updated, in words for the notice. */
const HOW: Record<InstallChannel['kind'], (channel: InstallChannel) => string> = {
  'npm-global': () => 'Update it with npm.',
  'npm-project': (channel) => `It is a dependency of ${channel.project}: update it in that project.`,
  extension: () => 'It comes with a LoopX extension in another editor: update the extension there.',
  checkout: (channel) => `It runs from a checkout at ${channel.root}: update that checkout and build it.`,
  unknown: () => 'Install it again the way you installed it first.',
};

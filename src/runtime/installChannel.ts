import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * Where a loopx was installed from, which decides how it is kept current (`loopx update plan|apply`). Read from the
 * folder the running CLI lives in, never from a setting: each channel updates only through itself, so an npm install
 * is never replaced by a checkout's build or the extension's copy, and the extension's CLI changes only with the
 * extension.
 */
export type InstallChannelKind = 'npm-global' | 'npm-project' | 'extension' | 'checkout' | 'unknown';

export interface InstallChannel {
  kind: InstallChannelKind;
  /** The installed package's folder (where bin/ and dist/ are). */
  root: string;
  /** For an npm install: its package.json's version (what npm installed, whatever the bundles say). */
  installed?: string;
  /** For `npm-project`: the project whose dependency it is. */
  project?: string;
}

/**
 * The channel of the loopx installed at `root`. `npmGlobalRoot` (npm's `root -g`, asked only for a loopx inside a
 * node_modules folder) tells a global install from a project's dependency.
 */
export function installChannelOf(root: string, npmGlobalRoot: () => string | null): InstallChannel {
  const manifest = readManifest(join(root, 'package.json'));
  if (existsSync(join(root, '.git'))) return { kind: 'checkout', root };
  if (manifest?.engines && typeof manifest.engines === 'object' && 'vscode' in manifest.engines) return { kind: 'extension', root };
  const installed = versionOf(manifest) ?? undefined;
  if (manifest?.name === 'loopx' && basename(root) === 'loopx' && basename(dirname(root)) === 'node_modules') {
    const globalRoot = npmGlobalRoot();
    if (globalRoot && resolve(globalRoot) === resolve(dirname(root))) return { kind: 'npm-global', root, installed };
    return { kind: 'npm-project', root, installed, project: dirname(dirname(root)) };
  }
  return { kind: 'unknown', root, installed };
}

/** How a person updates a loopx of this channel by hand: the words `update plan` shows and `update apply` refuses with. */
export function howToUpdate(channel: InstallChannel): string {
  switch (channel.kind) {
    case 'npm-global':
      return '`loopx update apply` installs the newest version with npm, after you confirm it';
    case 'npm-project':
      return `loopx is a dependency of ${channel.project}: change its version in that project's package.json and run npm install there`;
    case 'extension':
      return "this loopx comes with the LoopX extension and is updated with it: VS Code's Extensions view (LoopX, Update), or Cursor's";
    case 'checkout':
      return `this loopx runs from a checkout (${channel.root}): pull it and run npm run build there`;
    case 'unknown':
      return `loopx at ${channel.root} was not installed by npm, by the extension or from a checkout, so loopx cannot tell how to update it: install loopx with npm or the extension (docs/install.md) and use that one`;
  }
}

/** The version in the package.json at `root` (what npm installed there), or null. */
export function installedVersion(root: string): string | null {
  return versionOf(readManifest(join(root, 'package.json')));
}

const versionOf = (manifest: Record<string, unknown> | null) => (typeof manifest?.version === 'string' ? manifest.version : null);

function readManifest(file: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

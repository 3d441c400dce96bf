import type * as ChildProcess from 'node:child_process';
import { homedir } from 'node:os';
import { personsProgram } from './programsOnPath';
import { withPersonsPath } from '../kernel/personsPath';

/**
 * What `loopx update` (and VS Code's notice of another loopx on PATH) asks npm: its global folder, the newest loopx
 * on the registry it is configured with (the person's own: npm's config and environment decide, never loopx), and the
 * install itself. Each call has a time limit; a failure is said in npm's own words, as trouble with npm or the
 * network, not with loopx. npm is the person's: found in PATH's absolute folders outside the workspace, so an `npm`
 * an agent planted there (or in a relative PATH entry) is never run (programsOnPath.ts).
 */
const WINDOWS = process.platform === 'win32';
// npm.cmd runs only through a shell since Node's fix for CVE-2024-27980; every argument here is a fixed word or a
// version checked against semver's grammar, and the program's path is quoted, so nothing reaches that shell unchecked.
const SHELL = WINDOWS;

function childProcess(): typeof ChildProcess {
  return process.getBuiltinModule('node:child_process') as typeof ChildProcess;
}

/**
 * Where npm runs: the person's home folder, never the workspace. npm reads the project's `.npmrc` from the folder it
 * runs in (or the nearest above it with a package.json), which an agent can write: its `registry` would name the
 * loopx `update plan` offers, a planted one. From home npm reads only the person's own config.
 */
function npmOptions(env: NodeJS.ProcessEnv) {
  return { cwd: env.HOME || env.USERPROFILE || homedir(), env: withPersonsPath(env), shell: SHELL };
}

/** The person's npm: the first on PATH's absolute folders that is not inside `workspace`; null when there is none. */
export function npmOnPath(env: NodeJS.ProcessEnv, workspace: string): string | null {
  return personsProgram([WINDOWS ? 'npm.cmd' : 'npm'], env.PATH ?? '', workspace);
}

/** How the program is named to spawn: quoted for cmd.exe's line on Windows. */
const spawnName = (npm: string) => (WINDOWS ? `"${npm}"` : npm);

/** npm's global node_modules folder (`npm root -g`), or null when npm cannot be run. */
export function npmGlobalRoot(env: NodeJS.ProcessEnv, workspace: string): string | null {
  const npm = npmOnPath(env, workspace);
  if (!npm) return null;
  const r = childProcess().spawnSync(spawnName(npm), ['root', '-g'], { ...npmOptions(env), encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

/** The same without blocking (the extension host asks it): null when npm cannot be run or says nothing. */
export function npmGlobalRootAsync(env: NodeJS.ProcessEnv, workspace: string): Promise<string | null> {
  const npm = npmOnPath(env, workspace);
  if (!npm) return Promise.resolve(null);
  return new Promise((done) =>
    childProcess().execFile(spawnName(npm), ['root', '-g'], { ...npmOptions(env), encoding: 'utf8', timeout: 30_000 }, (error, stdout) =>
      done(!error && stdout.trim() ? stdout.trim() : null),
    ),
  );
}

const NO_NPM = 'npm was not found on PATH (outside this folder, which agents can write)';

export type Latest = { version: string } | { version: null; code: 'not_published' | 'npm_failed'; message: string };

/**
 * One retry of a failed lookup, two seconds later: npm's own first retry waits ten, so a machine offline waited about
 * eleven seconds for "npm could not say" (now about three).
 */
const LOOKUP_FLAGS = ['--fetch-retries=1', '--fetch-retry-mintimeout=2000', '--fetch-retry-maxtimeout=4000', '--fetch-timeout=20000'];

/** The version npm would install as `loopx@latest`, from the registry npm is configured with. */
export function latestOnNpm(env: NodeJS.ProcessEnv, workspace: string): Latest {
  const npm = npmOnPath(env, workspace);
  if (!npm) return { version: null, code: 'npm_failed', message: NO_NPM };
  const r = childProcess().spawnSync(spawnName(npm), ['view', 'loopx', 'version', '--json', ...LOOKUP_FLAGS], {
    ...npmOptions(env),
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.error) return { version: null, code: 'npm_failed', message: `npm could not be run: ${r.error.message}` };
  let answer: unknown;
  try {
    answer = JSON.parse(r.stdout);
  } catch {
    answer = undefined;
  }
  if (r.status === 0 && typeof answer === 'string') return { version: answer };
  const error = (answer as { error?: { code?: string; summary?: string } } | undefined)?.error;
  if (error?.code === 'E404') return { version: null, code: 'not_published', message: 'loopx is not on the npm registry yet' };
  const said = error?.summary ?? r.stderr.trim().split('\n')[0] ?? `exit ${r.status}`;
  return { version: null, code: 'npm_failed', message: `npm could not say which loopx is newest: ${said}` };
}

/** `npm install -g loopx@VERSION`, its output on this process's stderr; its exit status (null when killed). */
export function installGlobal(version: string, env: NodeJS.ProcessEnv, workspace: string): { status: number | null; error?: string } {
  const npm = npmOnPath(env, workspace);
  if (!npm) return { status: null, error: NO_NPM };
  const r = childProcess().spawnSync(spawnName(npm), ['install', '-g', '--no-audit', '--no-fund', `loopx@${version}`], {
    // npm is a Node script: its `#!/usr/bin/env node` finds the person's node, never one planted in the workspace.
    ...npmOptions(env),
    stdio: ['ignore', 2, 2],
    timeout: 600_000,
  });
  return { status: r.status, error: r.error?.message };
}

/** The words of the install `update apply` runs, as a person would type them. */
export function installWords(version: string): string {
  return `npm install -g loopx@${version}`;
}

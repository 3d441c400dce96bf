import type * as ChildProcess from 'node:child_process';

/**
 * What `loopx update` asks npm: its global folder, the newest loopx on the registry it is configured with (the
 * person's own: npm's config and environment decide, never loopx), and the install itself. Each call has a time
 * limit; a failure is said in npm's own words, as trouble with npm or the network, not with loopx.
 */
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// npm.cmd runs only through a shell since Node's fix for CVE-2024-27980; every argument here is a fixed word or a
// version checked against semver's grammar, so nothing a person typed reaches that shell unchecked.
const SHELL = process.platform === 'win32';

function childProcess(): typeof ChildProcess {
  return process.getBuiltinModule('node:child_process') as typeof ChildProcess;
}

/** npm's global node_modules folder (`npm root -g`), or null when npm cannot be run. */
export function npmGlobalRoot(env: NodeJS.ProcessEnv): string | null {
  const r = childProcess().spawnSync(NPM, ['root', '-g'], { env, encoding: 'utf8', timeout: 30_000, shell: SHELL });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

/** The same without blocking (the extension host asks it): null when npm cannot be run or says nothing. */
export function npmGlobalRootAsync(env: NodeJS.ProcessEnv): Promise<string | null> {
  return new Promise((done) =>
    childProcess().execFile(NPM, ['root', '-g'], { env, encoding: 'utf8', timeout: 30_000, shell: SHELL }, (error, stdout) =>
      done(!error && stdout.trim() ? stdout.trim() : null),
    ),
  );
}

export type Latest = { version: string } | { version: null; code: 'not_published' | 'npm_failed'; message: string };

/** The version npm would install as `loopx@latest`, from the registry npm is configured with. */
export function latestOnNpm(env: NodeJS.ProcessEnv): Latest {
  const r = childProcess().spawnSync(NPM, ['view', 'loopx', 'version', '--json', '--fetch-retries=1', '--fetch-timeout=20000'], {
    env,
    encoding: 'utf8',
    timeout: 60_000,
    shell: SHELL,
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
export function installGlobal(version: string, env: NodeJS.ProcessEnv): { status: number | null; error?: string } {
  const r = childProcess().spawnSync(NPM, ['install', '-g', '--no-audit', '--no-fund', `loopx@${version}`], {
    env,
    stdio: ['ignore', 2, 2],
    timeout: 600_000,
    shell: SHELL,
  });
  return { status: r.status, error: r.error?.message };
}

/** The words of the install `update apply` runs, as a person would type them. */
export function installWords(version: string): string {
  return `npm install -g loopx@${version}`;
}

import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { workspaceRootOf } from '../kernel/personsPath';

// Where a runner or a VS Code window answers its turns' agents' loopx calls (cli/run/verbServer.ts): the environment a
// turn's host gets, the folder, and the name a socket gets there.

/** What a turn's host gets, beside LOOPX_AGENT: where its runner (or window) answers, and the turn's own key to it. */
export const RUNNER_SOCKET_ENV = 'LOOPX_RUNNER_SOCKET';
export const RUNNER_TOKEN_ENV = 'LOOPX_RUNNER_TOKEN';

/**
 * A socket's name: it carries the pid of the process whose turns it serves, so that the next one to listen removes the
 * socket of one that is gone (a runner killed with kill -9, a closed window).
 */
export const VERB_SOCKET_NAME = /^r(\d+)-[0-9a-f]{8}\.sock$/;

/** A new socket's path in `folder`, for the turns of the process `pid`. */
export function verbSocketPath(folder: string, pid = process.pid): string {
  return join(folder, `r${pid}-${randomBytes(4).toString('hex')}.sock`);
}

/**
 * The folder the socket goes in: the person's runtime folder (`$XDG_RUNTIME_DIR/loopx`), else their cache folder's
 * (`~/.cache/loopx/run`), made 0700 and theirs. Never one an agent's host lets it write, which would let an agent put
 * its own server in the runner's place for the other turns: not the temp folder (Codex's sandbox writes it), not a
 * loopx workspace. Null when no such folder can be had: the runner then answers nothing and calls run as before.
 */
export function verbSocketFolder(env: NodeJS.ProcessEnv): string | null {
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return null;
  const runtime = env.XDG_RUNTIME_DIR && env.XDG_RUNTIME_DIR.startsWith('/') ? join(env.XDG_RUNTIME_DIR, 'loopx') : null;
  const cache = join(
    env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(env.HOME || homedir(), '.cache'),
    'loopx',
    'run',
  );
  const temp = resolve(env.TMPDIR || tmpdir());
  for (const folder of runtime ? [runtime, cache] : [cache]) {
    const inTemp = `${resolve(folder)}/`.startsWith(`${temp}/`) || `${resolve(folder)}/`.startsWith('/tmp/');
    if (inTemp || workspaceRootOf(dirname(resolve(folder))) !== null) continue;
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      const stat = lstatSync(folder);
      if (!stat.isDirectory() || stat.uid !== process.getuid()) continue;
      if ((stat.mode & 0o077) !== 0) chmodSync(folder, 0o700);
      return folder;
    } catch {
      continue;
    }
  }
  return null;
}

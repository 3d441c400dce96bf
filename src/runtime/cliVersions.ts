import type * as ChildProcess from 'node:child_process';
import { LOOPX_VERSION } from '../shared/version';
import { heldByWorkspace, programsOnPath, realOr } from './programsOnPath';
import { personsPath } from '../kernel/personsPath';

/** One `loopx` on PATH: where, what it says its version is (null when it did not say), and whether it is this one. */
export interface CliOnPath {
  path: string;
  version: string | null;
  self: boolean;
  /** Inside the workspace (which agents can write): found, never run. */
  inWorkspace?: boolean;
}

const NAMES = process.platform === 'win32' ? ['loopx.cmd', 'loopx.exe', 'loopx'] : ['loopx'];

/** Every executable `loopx` on PATH's absolute folders, in PATH's order, each file once (programsOnPath.ts). */
export function loopxOnPath(path: string): { path: string; real: string }[] {
  return programsOnPath(NAMES, path);
}

/**
 * Asks each `loopx` on PATH for its version (`--version --json`, 5 s each, in parallel). This process's own file is
 * not asked: its version is known. Nor is one inside `workspace`: an agent can write there (an absolute
 * `node_modules/.bin` an npm script puts on PATH), and doctor would run it where the person's own `loopx` never
 * reaches it. A person who runs `loopx` in a terminal gets the first; VS Code's terminals put the extension's own first.
 */
export async function cliVersions(path: string, workspace: string, selfScript = process.argv[1]): Promise<CliOnPath[]> {
  const self = selfScript ? realOr(selfScript) : null;
  const held = heldByWorkspace(workspace);
  const { execFile } = process.getBuiltinModule('node:child_process') as typeof ChildProcess;
  return Promise.all(
    loopxOnPath(path).map(
      ({ path: file, real }) =>
        new Promise<CliOnPath>((done) => {
          if (real === self) return done({ path: file, version: LOOPX_VERSION, self: true });
          if (held(real)) return done({ path: file, version: null, self: false, inWorkspace: true });
          execFile(
            file,
            ['--version', '--json'],
            // The person's PATH (personsPath): a loopx's `#!/usr/bin/env node` never finds a node planted in the workspace.
            { encoding: 'utf8', timeout: 5000, env: { ...process.env, PATH: personsPath(path) } },
            (_error, stdout) => {
              let version: string | null = null;
              try {
                const parsed = JSON.parse(stdout) as { data?: { version?: unknown } };
                if (typeof parsed.data?.version === 'string') version = parsed.data.version;
              } catch {
                /* not a loopx that answers in JSON: said as unknown */
              }
              done({ path: file, version, self: false });
            },
          );
        }),
    ),
  );
}

/**
 * Doctor's line on the CLIs a person's terminals run: fine when every loopx on PATH is this version; a warning naming
 * each version and where when they differ (the newer migrates the store, the older then refuses it), or when the
 * first on PATH, the one agents in this terminal run, is another version than this one.
 */
export function cliVersionsCheck(found: readonly CliOnPath[]): { level: 'ok' | 'warn'; detail: string } {
  if (found.length === 0)
    return { level: 'ok', detail: `this loopx is ${LOOPX_VERSION}; no loopx on PATH (agents in terminals need one: docs/install.md)` };
  const versions = new Set(found.map((f) => f.version ?? 'unknown'));
  versions.add(LOOPX_VERSION);
  const listed = found
    .map((f) => {
      const version = f.inWorkspace
        ? 'a version not asked (inside this workspace, which agents can write)'
        : (f.version ?? 'a version it did not say');
      return `${version} at ${f.path}${f.self ? ' (this one)' : ''}`;
    })
    .join('; ');
  if (versions.size === 1)
    return {
      level: 'ok',
      detail: `loopx ${LOOPX_VERSION}: ${found.length === 1 ? 'the one' : 'every one'} on PATH (${found.map((f) => f.path).join(', ')})`,
    };
  return {
    level: 'warn',
    detail: `loopx versions differ: this one is ${LOOPX_VERSION}; on PATH, first to last: ${listed}. A newer one migrates the store and an older one then refuses it: update or remove the older ones (\`loopx update plan\`, run with each, says how it was installed and how to update it)`,
  };
}

import { existsSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';

/**
 * PATH as loopx uses it to run a program on a person's behalf, outside any agent's sandbox (git for worktrees and
 * landing, gh, a host's program): its absolute folders that are in no loopx workspace. A relative folder (`.`,
 * `node_modules/.bin`) names wherever the command runs, and a folder inside a workspace (a Python `.venv/bin` or a
 * `node_modules/.bin` an npm script put first on PATH) is one its agents can write: a `git` planted there would run as
 * the person the next time loopx lands a change (docs/authority.md). A workspace is a folder with `.loopx` at or above.
 */
export function personsPath(path: string): string {
  let kept = judged.get(path);
  if (kept === undefined) {
    kept = path
      .split(delimiter)
      .filter((dir) => dir !== '' && isAbsolute(dir) && !inWorkspace(resolve(dir)))
      .join(delimiter);
    judged.set(path, kept);
  }
  return kept;
}

/** PATH's folders personsPath leaves out (relative ones, those in a workspace), each once, in PATH's order. */
export function leftOutFolders(path: string): string[] {
  const kept = new Set(personsPath(path).split(delimiter));
  return [...new Set(path.split(delimiter).filter((dir) => dir !== '' && !kept.has(dir)))];
}

/** The environment `env` with its PATH as personsPath keeps it. */
export function withPersonsPath(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return env.PATH === undefined ? env : { ...env, PATH: personsPath(env.PATH) };
}

// A process asks for the same PATH again and again (every git call): each judged once.
const judged = new Map<string, string>();

function inWorkspace(dir: string): boolean {
  return workspaceRootOf(dir) !== null;
}

/** The loopx workspace `dir` is in (the nearest folder at or above it with `.loopx`), or null. */
export function workspaceRootOf(dir: string): string | null {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, '.loopx'))) return at;
    if (dirname(at) === at) return null;
  }
}

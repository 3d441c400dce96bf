import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, parse, sep } from 'node:path';
import { personsPath } from '../kernel/personsPath';

/**
 * Programs loopx runs on a person's behalf from PATH (every `loopx`, for doctor and VS Code's version notice; `npm`,
 * for `loopx update`), found only where an agent cannot have put them: PATH's absolute folders (a relative one, `.`
 * or `node_modules/.bin`, names wherever the command runs, the workspace an agent can write), and never a file inside
 * the workspace (an absolute `node_modules/.bin` an npm script puts on PATH).
 */

/** Each executable named `names` in PATH's absolute folders, in PATH's order, each file once (a folder listed twice, a link). */
export function programsOnPath(names: readonly string[], path: string): { path: string; real: string }[] {
  const seen = new Set<string>();
  const found: { path: string; real: string }[] = [];
  for (const dir of path.split(delimiter).filter((d) => isAbsolute(d))) {
    for (const name of names) {
      const candidate = join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        const real = realpathSync(candidate);
        if (seen.has(real)) continue;
        seen.add(real);
        found.push({ path: candidate, real });
      } catch {
        /* not there, or not runnable */
      }
    }
  }
  return found;
}

/**
 * The person's copy of a program: the first named `names` in PATH's folders outside loopx workspaces (personsPath)
 * whose real file is not inside `workspace` either (a link out of an outside folder).
 */
export function personsProgram(names: readonly string[], path: string, workspace: string): string | null {
  const held = heldByWorkspace(workspace);
  return programsOnPath(names, personsPath(path)).find(({ real }) => !held(real))?.path ?? null;
}

/** Whether a file's real path is inside `workspace` (a workspace at a file system's root holds nothing back). */
export function heldByWorkspace(workspace: string): (real: string) => boolean {
  const folder = realOr(workspace);
  const inside = folder === parse(folder).root ? null : `${folder}${sep}`;
  return (real) => inside !== null && real.startsWith(inside);
}

export function realOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

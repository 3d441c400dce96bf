import { existsSync, statSync } from 'node:fs';
import { StoreEnvironmentError } from '../kernel/storeFile';
import { dirname, join, resolve } from 'node:path';
import { InvalidInputError, NoStoreError } from '../kernel/errors';
import { DB_FILE, STORE_DIR } from '../kernel/kernel';
import { TEAM_POINTER_FILE } from '../kernel/team/teamPointer';

/**
 * Whether `dir` holds a store. A `.loopx/` that cannot be read (permissions, another user's) is said as such,
 * never as "no store found", which would invite `loopx init` over it.
 */
function holdsStore(dir: string): boolean {
  try {
    statSync(join(dir, STORE_DIR, DB_FILE));
    return true;
  } catch {
    /* not this machine's own store: a pointer to a team store then? */
  }
  try {
    statSync(join(dir, STORE_DIR, TEAM_POINTER_FILE));
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') return false;
    throw new StoreEnvironmentError(
      'store_unopenable',
      `cannot read ${join(dir, STORE_DIR)}: permission denied (it may belong to another user)`,
      `check the permissions of ${join(dir, STORE_DIR)} and its files, or run as their owner`,
    );
  }
}

/** The workspace root named by --root or LOOPX_ROOT, or the nearest directory above `cwd` holding .loopx/. */
export function locateRoot(options: { root?: string; envRoot?: string; cwd: string }): string {
  const explicit = options.root ?? (options.envRoot ? options.envRoot : undefined);
  if (explicit !== undefined) {
    const root = resolve(options.cwd, explicit);
    if (!holdsStore(root)) throw new NoStoreError(root);
    return root;
  }
  let dir = resolve(options.cwd);
  for (;;) {
    if (holdsStore(dir)) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new NoStoreError(resolve(options.cwd));
    dir = parent;
  }
}

/**
 * The folder whose programs loopx must not run on a person's behalf (programsOnPath.ts): the workspace the nearest
 * store names, else the current directory (a command that needs no store, run where there is none).
 */
export function workspaceOrCwd(options: { envRoot?: string; cwd: string }): string {
  try {
    return locateRoot(options);
  } catch {
    return options.cwd;
  }
}

/** Where `init` creates a store: --root, else LOOPX_ROOT, else the current directory. It must be a directory. */
export function initRootDir(options: { root?: string; envRoot?: string; cwd: string }): string {
  const root = resolve(options.cwd, options.root ?? (options.envRoot || '.'));
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new InvalidInputError(`${root} is not a directory`);
  return root;
}

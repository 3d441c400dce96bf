import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { InvalidInputError, NoStoreError } from './errors';
import { DB_FILE, STORE_DIR } from './kernel';

/** The workspace root named by --root or LOOPX_ROOT, or the nearest directory above `cwd` holding .loopx/. */
export function locateRoot(options: { root?: string; envRoot?: string; cwd: string }): string {
  const explicit = options.root ?? (options.envRoot ? options.envRoot : undefined);
  if (explicit !== undefined) {
    const root = resolve(options.cwd, explicit);
    if (!existsSync(join(root, STORE_DIR, DB_FILE))) throw new NoStoreError(root);
    return root;
  }
  let dir = resolve(options.cwd);
  for (;;) {
    if (existsSync(join(dir, STORE_DIR, DB_FILE))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new NoStoreError(resolve(options.cwd));
    dir = parent;
  }
}

/** Where `init` creates a store: --root, else LOOPX_ROOT, else the current directory. It must be a directory. */
export function initRootDir(options: { root?: string; envRoot?: string; cwd: string }): string {
  const root = resolve(options.cwd, options.root ?? (options.envRoot || '.'));
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new InvalidInputError(`${root} is not a directory`);
  return root;
}

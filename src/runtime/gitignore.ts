import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export type GitignoreResult = 'added' | 'present' | 'not a git repository';

/** True when `root` is inside a git work tree: a `.git` folder (or a worktree's `.git` file) here or above. */
function inGitWorkTree(root: string): boolean {
  for (let dir = root; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return true;
    if (dirname(dir) === dir) return false;
  }
}

/**
 * Adds `.loopx/` to the root's .gitignore when the root is in a git work tree (the store is local state: one
 * `git add .` must not commit the database); never rewrites other lines. The CLI's `init` and VS Code's Initialize
 * both call this.
 */
export function ensureGitignore(root: string): GitignoreResult {
  if (!inGitWorkTree(root)) return 'not a git repository';
  const path = join(root, '.gitignore');
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  if (lines.some((l) => l === '.loopx' || l === '.loopx/' || l === '/.loopx' || l === '/.loopx/')) return 'present';
  const prefix = text.length > 0 && !text.endsWith('\n') ? '\n' : '';
  writeFileSync(path, `${text}${prefix}# loopx local state (see .loopx/STATUS.md)\n.loopx/\n`);
  return 'added';
}

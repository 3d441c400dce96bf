import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '../command';
import { Kernel } from '../../kernel/kernel';
import { writeStatusMd } from '../../kernel/projections/statusMd';

/** Adds `.loopx/` to .gitignore when the root is a git work tree; never rewrites other lines. */
function ensureGitignore(root: string): 'added' | 'present' | 'not a git repository' {
  if (!existsSync(join(root, '.git'))) return 'not a git repository';
  const path = join(root, '.gitignore');
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  if (lines.some((l) => l === '.loopx' || l === '.loopx/' || l === '/.loopx' || l === '/.loopx/')) return 'present';
  const prefix = text.length > 0 && !text.endsWith('\n') ? '\n' : '';
  writeFileSync(path, `${text}${prefix}# loopx local state (see .loopx/STATUS.md)\n.loopx/\n`);
  return 'added';
}

export const init: Command = {
  name: ['init'],
  summary: 'create .loopx/ in the workspace root (an existing store is reused, never overwritten)',
  description: 'Creates the store in --root, $LOOPX_ROOT or the current directory, and adds .loopx/ to .gitignore in a git repository.',
  examples: ['loopx init', 'loopx init --root ~/src/project --json'],
  run(ctx) {
    const root = ctx.initRoot();
    const { kernel, created } = Kernel.init(root, { actor: ctx.actor });
    try {
      const gitignore = ensureGitignore(root);
      writeStatusMd(kernel);
      const data = { root, store: kernel.storeDir, created, schemaVersion: kernel.schemaVersion, driver: kernel.db.driver, gitignore };
      const text = created
        ? `Initialised ${kernel.storeDir} (schema ${data.schemaVersion}, ${data.driver}); .gitignore: ${gitignore}.\nNext: loopx goal create --title "…"`
        : `${kernel.storeDir} already exists; reused it unchanged (schema ${data.schemaVersion}). .gitignore: ${gitignore}.`;
      return { data, text };
    } finally {
      kernel.close();
    }
  },
};

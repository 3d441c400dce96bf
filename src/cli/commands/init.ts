import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { ensureGitignore } from '../../runtime/gitignore';
import { dirname, join } from 'node:path';
import { requireText } from '../../kernel/validate';
import type { Command } from '../command';
import { Kernel } from '../../kernel/kernel';
import { writeStatusMd } from '../../runtime/projections/statusMd';
import { registerQuietly } from '../../kernel/projects/projectRegistry';
import { kernelStoreId } from '../../kernel/projects/storeIdentity';

/** A goal file from the template, never over an existing one (the file is the person's). */
async function startGoalFile(root: string, title: string): Promise<{ path: string; written: boolean }> {
  // Goal files (YAML) are loaded by the commands that read or write them, not at every call's start-up.
  const { defaultGoalFilePath, goalFileTemplate } = await import('../../goalFile/format');
  const path = defaultGoalFilePath(title);
  const absolute = join(root, path);
  if (existsSync(absolute)) return { path, written: false };
  mkdirSync(dirname(absolute), { recursive: true });
  writeFileSync(absolute, goalFileTemplate(title));
  return { path, written: true };
}

export const init: Command = {
  name: ['init'],
  summary: 'create .loopx/ in the workspace root (an existing store is reused, never overwritten)',
  description: 'Creates the store in --root, $LOOPX_ROOT or the current directory, and adds .loopx/ to .gitignore in a git repository.',
  flags: {
    'goal-file': {
      type: 'string',
      value: 'TITLE',
      description: 'also start a goal file loopx/<title>.goal.md to plan in (applied with `loopx goal apply`)',
    },
  },
  examples: ['loopx init', 'loopx init --root ~/src/project --json', 'loopx init --goal-file "CSV importer"'],
  async run(ctx) {
    const root = ctx.initRoot();
    const title = ctx.args.str('goal-file');
    if (title !== undefined) requireText(title, '--goal-file');
    const { kernel, created } = Kernel.init(root, { actor: ctx.actor });
    try {
      const gitignore = ensureGitignore(root);
      writeStatusMd(kernel);
      const goalFile = title === undefined ? null : await startGoalFile(root, title.trim());
      // Listed among the person's projects (loopx projects); a config folder this process may not write is no failure.
      const notListed = registerQuietly(root, 'init', kernelStoreId(kernel), { env: ctx.env });
      const data = {
        root,
        store: kernel.storeDir,
        created,
        schemaVersion: kernel.schemaVersion,
        driver: kernel.db.driver,
        gitignore,
        goalFile,
        listed: notListed === null,
        ...(notListed === null ? {} : { notListed }),
      };
      const next = goalFile
        ? `Next: edit ${goalFile.path}, then loopx goal apply ${goalFile.path}`
        : 'Next: loopx goal create --title "…", or plan in a file: loopx init --goal-file "…"';
      const text = created
        ? `Initialized ${kernel.storeDir} (schema ${data.schemaVersion}, ${data.driver}); .gitignore: ${gitignore}.\n${next}`
        : `${kernel.storeDir} already exists; reused it unchanged (schema ${data.schemaVersion}). .gitignore: ${gitignore}.${goalFile ? `\n${next}` : ''}`;
      return { data, text };
    } finally {
      kernel.close();
    }
  },
};

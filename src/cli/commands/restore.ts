import type { Command } from '../command';
import { restoreStore } from '../../kernel/backup';
import { InvalidInputError } from '../../kernel/errors';

export const restore: Command = {
  name: ['restore'],
  summary: 'put a backup back into the store (human only); the current content is saved first, so it can be undone',
  description:
    'Verifies FILE (integrity, schema, hash chain), saves the store as .loopx/backups/…-before-restore.db, then replaces\n' +
    'the store\'s content with FILE\'s in one transaction: open windows and agents see an ordinary change.',
  positionals: [{ name: 'FILE', description: 'a backup written by loopx backup', required: true }],
  flags: { yes: { type: 'boolean', description: 'really replace the store\'s content' } },
  humanOnly: true,
  mutates: true,
  examples: ['loopx restore .loopx/backups/loopx-20261130T080809123Z-e1207.db --yes'],
  run(ctx) {
    const file = ctx.args.positionals[0] as string;
    if (!file.trim()) throw new InvalidInputError('FILE is empty');
    if (!ctx.args.bool('yes')) {
      throw new InvalidInputError('restore replaces everything in the store with the backup\'s content', `check the file, then run again with --yes: loopx restore ${file} --yes`);
    }
    const result = restoreStore(ctx.kernel(), file);
    return {
      data: result,
      text: `Restored ${result.events} events from ${result.from}.\nThe store as it was is saved at ${result.saved.path}; restore that file to undo.`,
    };
  },
};

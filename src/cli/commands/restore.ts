import type { Command } from '../command';
import { restoreStore } from '../../kernel/backup';
import { EXIT, InvalidInputError, LoopxError } from '../../kernel/errors';
import { TeamEngine } from '../../kernel/team/teamEngine';

export const restore: Command = {
  name: ['restore'],
  summary:
    'put a backup back into the store (humans only, in an interactive terminal: you type "restore"); the current content is saved first',
  description:
    'Verifies FILE (integrity, schema, hash chain, its state replayed from its log), then, holding the write lock,\n' +
    "saves the store as .loopx/backups/…-before-restore.db and replaces its content with FILE's in one transaction:\n" +
    'open windows and agents see an ordinary change. Human-only: it asks you to type "restore" in a terminal.',
  positionals: [{ name: 'FILE', description: 'a backup written by loopx backup', required: true }],
  flags: {
    yes: {
      type: 'boolean',
      description: 'accepted for compatibility; restore always asks you to type "restore" in an interactive terminal',
    },
  },
  humanOnly: true,
  mutates: true,
  examples: ['loopx restore .loopx/backups/loopx-20261130T080809123Z-e1207.db   (then type: restore)'],
  run(ctx) {
    const file = ctx.args.positionals[0] as string;
    if (!file.trim()) throw new InvalidInputError('FILE is empty');
    const kernel = ctx.kernel();
    if (kernel.engine instanceof TeamEngine)
      throw new LoopxError(
        'team_restore_refused',
        "this workspace uses a team store: putting a backup back would rewrite every machine's history, so loopx does not; nothing was changed",
        EXIT.refused,
        '`loopx team leave` gives this workspace its own store again, where `loopx restore FILE` works; or `loopx team push` the restored store into a new, empty team store',
      );
    // --yes no longer decides anything: an agent can pass a flag, it cannot type at a terminal it does not have.
    const human = ctx.confirmHuman(`replace everything in the store with the content of ${file}`, 'restore', [
      'the current content is saved first, so this can be undone',
    ]);
    const result = restoreStore(kernel.as(human), file);
    return {
      data: result,
      text: `Restored ${result.events} events from ${result.from}.\nThe store as it was is saved at ${result.saved.path}; restore that file to undo.`,
    };
  },
};

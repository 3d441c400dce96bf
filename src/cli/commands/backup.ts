import { relative } from 'node:path';
import type { Command } from '../command';
import { backupStore } from '../../kernel/backup';
import { formatAnchor } from '../../kernel/events/anchor';
import { InvalidInputError } from '../../kernel/errors';

export const backup: Command = {
  name: ['backup'],
  summary: 'write a verified copy of the store (default .loopx/backups/, the newest ten kept); writers go on meanwhile',
  flags: {
    to: { type: 'string', value: 'FILE', description: 'write this new file instead (never overwritten; its folder must exist)' },
    keep: { type: 'int', value: 'N', min: 1, max: 10_000, description: 'backups to keep in .loopx/backups/ (default 10)' },
  },
  examples: ['loopx backup', 'loopx backup --to /mnt/backups/project-loopx.db'],
  run(ctx) {
    const keep = ctx.args.num('keep');
    const kernel = ctx.kernel();
    const to = ctx.args.str('to');
    if (to !== undefined && !to.trim()) throw new InvalidInputError('--to needs a file name');
    const result = backupStore(kernel, { to, keep });
    const shown = relative(process.cwd(), result.path) || result.path;
    const lines = [
      `Backed up ${result.events} events to ${shown.startsWith('..') ? result.path : shown} (${Math.ceil(result.bytes / 1024)} KB), verified.`,
    ];
    if (result.head) lines.push(`Anchor: ${formatAnchor(result.head)}`);
    if (result.removed.length) lines.push(`Removed ${result.removed.length} older backup${result.removed.length === 1 ? '' : 's'}.`);
    return { data: result, text: lines.join('\n') };
  },
};

import * as vscode from 'vscode';
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { EXIT, LoopxError } from '../../kernel/errors';
import { BACKUP_DIR, backupStore as backupOp, restoreStore } from '../../kernel/backup';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { inFolder } from './inFolder';

export const backupStore: CommandDefinition = {
  id: COMMANDS.backupStore,
  async run(ctx) {
    const kernel = kernelOf(ctx);
    const backup = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'LoopX: backing up the store…' },
      async () => backupOp(kernel),
    );
    ctx.log.info(`backup: ${backup.path} (${backup.events} events, ${backup.bytes} bytes; removed ${backup.removed.length})`);
    void vscode.window.showInformationMessage(
      `LoopX: backed up ${backup.events} events to ${relative(kernel.root, backup.path)}, verified.`,
    );
    return backup;
  },
};

/** Picks one of .loopx/backups (newest first), confirms in a modal, restores; the replaced content is saved first. */
export const restoreBackup: CommandDefinition = {
  id: COMMANDS.restoreBackup,
  async run(ctx, arg) {
    const kernel = kernelOf(ctx);
    const folder = join(kernel.storeDir, BACKUP_DIR);
    let file = typeof arg === 'string' ? resolve(kernel.root, arg) : undefined;
    if (file && !file.startsWith(`${kernel.root}${sep}`))
      throw new LoopxError('invalid_input', 'Restore Backup takes a backup inside this workspace', EXIT.invalidInput);
    if (!file) {
      const names = listBackups(folder);
      if (!names.length) {
        void vscode.window
          .showInformationMessage('LoopX: there are no backups of this store yet.', 'Back Up Store')
          .then((choice) => choice && vscode.commands.executeCommand(COMMANDS.backupStore, inFolder(kernel.root)));
        return undefined;
      }
      const pick = await vscode.window.showQuickPick(
        names.map((name) => {
          const m = /^loopx-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})\d{3}Z-e(\d+)(-[a-z-]+)?\.db$/.exec(name);
          const when = m ? new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`).toLocaleString() : name;
          return {
            label: when,
            description: m ? `${m[7]} events${m[8] ? ` · ${m[8].slice(1).replace(/-/g, ' ')}` : ''}` : '',
            detail: `${name} · ${Math.ceil(statSync(join(folder, name)).size / 1024)} KB`,
            name,
          };
        }),
        { title: 'LoopX: Restore Backup', placeHolder: 'The backup to put back (newest first)' },
      );
      if (!pick) return undefined;
      file = join(folder, pick.name);
    }
    const confirmed = await vscode.window.showWarningMessage(
      'Replace everything in the LoopX store with this backup?',
      {
        modal: true,
        detail: `${relative(kernel.root, file)}\n\nThe store as it is now is saved first, as a backup you can restore to undo this.`,
      },
      'Restore',
    );
    if (confirmed !== 'Restore') return undefined;
    const result = restoreStore(kernel, file);
    await ctx.witness.accept(); // a person restored on purpose: this is the log to follow now
    ctx.model.invalidate();
    ctx.log.info(`restored ${result.from} (${result.events} events); the replaced store is saved at ${result.saved.path}`);
    void vscode.window.showInformationMessage(
      `LoopX: restored ${result.events} events. The replaced store is saved at ${relative(kernel.root, result.saved.path)}.`,
    );
    return result;
  },
};

function listBackups(folder: string): string[] {
  try {
    return readdirSync(folder)
      .filter((f) => f.startsWith('loopx-') && f.endsWith('.db'))
      .sort()
      .reverse();
  } catch {
    return [];
  }
}

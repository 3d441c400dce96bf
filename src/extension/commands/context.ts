import * as vscode from 'vscode';
import type { Kernel } from '../../kernel/kernel';
import { LoopxError } from '../../kernel/errors';
import type { StoreSession } from '../store/storeSession';
import type { StoreModel } from '../store/storeModel';
import type { Log } from '../util/log';
import type { TurnRunner } from '../turns/turnRunner';
import type { GoalsTreeProvider } from '../views/goalsTree';
import type { LogWitness } from '../store/logWitness';
import { COMMANDS, type CommandId } from './commandIds';
import { inFolder } from './inFolder';
import { actionsFor, hintForPeople } from './errorActions';
import type { MonitorTicker } from '../monitors/monitorTicker';

/** What every command gets. Built once by the composition root. */
export interface ExtensionContextLike {
  session: StoreSession;
  model: StoreModel;
  log: Log;
  /** The human at the keyboard (UI actions are human actions). */
  me: string;
  /** Where the extension's own files (dist/webview, media) are. */
  extensionUri: vscode.Uri;
  /** The `loopx` agents in this editor run (a launcher on the editor's runtime; bundledCli.ts). */
  cliCommand: string;
  /** Runs agent turns in terminals (set once the app is built). */
  turns?: TurnRunner;
  /** The Goals tree, for its paging ("… N more"). */
  goalsTree?: GoalsTreeProvider;
  /** Remembers the newest event outside the store, to notice a log cut short. */
  witness?: LogWitness;
  /** Runs due monitor checks while the window is open (trusted workspaces only). */
  monitors?: MonitorTicker;
}

export interface CommandDefinition {
  id: CommandId;
  run(ctx: ExtensionContextLike, ...args: unknown[]): unknown;
}

export function kernelOf(ctx: ExtensionContextLike): Kernel {
  return ctx.session.requireKernel();
}

/**
 * Runs a command and turns failures into messages: refusals (exit 3) are warnings that say why; bad input and
 * missing things are errors; anything unexpected is logged with its stack and offers "Show Logs".
 */
export async function runSafely(ctx: ExtensionContextLike, def: CommandDefinition, args: unknown[]): Promise<unknown> {
  try {
    return await def.run(ctx, ...args);
  } catch (error) {
    if (error instanceof LoopxError && error.exitCode !== 1) {
      ctx.log.warn(`${def.id} refused: ${error.code}: ${error.message}`);
      const hint = hintForPeople(error.hint);
      const text = `LoopX: ${error.message}${hint ? ` (${hint})` : ''}`;
      const actions = actionsFor(error);
      const titles = actions.map((a) => a.title);
      const show = error.exitCode === 3 ? vscode.window.showWarningMessage : vscode.window.showErrorMessage;
      void Promise.resolve(show(text, ...titles)).then((choice) => {
        const action = actions.find((a) => a.title === choice);
        // The button acts in the folder the refusal came from (ids alone are ambiguous in a multi-root workspace).
        const ours = (Object.values(COMMANDS) as string[]).includes(action?.command ?? '');
        if (action) void vscode.commands.executeCommand(action.command, ...(ours ? [inFolder(ctx.session.root, ...(action.args ?? []))] : (action.args ?? [])));
      });
      return undefined;
    }
    ctx.log.error(`${def.id} failed`, error);
    const choice = await vscode.window.showErrorMessage(`LoopX: ${(error as Error)?.message ?? String(error)}`, 'Show Logs');
    if (choice === 'Show Logs') ctx.log.show();
    return undefined;
  }
}


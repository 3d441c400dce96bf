import * as vscode from 'vscode';
import type { Kernel } from '../../kernel/kernel';
import { EXIT } from '../../kernel/errors';
import { describeError } from '../../runtime/describeError';
import type { Services } from '../services';
import { COMMANDS, type CommandId } from './commandIds';
import { inFolder } from './inFolder';
import { actionsFor } from './errorActions';

export interface CommandDefinition {
  id: CommandId;
  run(ctx: Services, ...args: unknown[]): unknown;
}

export function kernelOf(ctx: Services): Kernel {
  return ctx.session.requireKernel();
}

/**
 * Runs a command for the person and turns failures into messages (errorBody's sentences): refusals (exit 3) are
 * warnings that say why, with buttons for what to do; a busy store offers Retry; bad input, missing things and
 * environment trouble are errors; anything unexpected is logged with its stack and offers "Show Logs".
 */
/** Refusals worth the same command again: a busy store, a team server back, a store now open where it moved to. */
const RETRYABLE = new Set(['busy', 'team_unreachable', 'store_moved']);

export async function runSafely(ctx: Services, def: CommandDefinition, args: unknown[]): Promise<unknown> {
  try {
    return await def.run(ctx, ...args);
  } catch (thrown) {
    const { body, typed: error } = describeError(thrown, 'person');
    if (error && error.exitCode !== EXIT.internal) {
      ctx.log.warn(`${def.id} refused: ${error.code}: ${error.message}`);
      const text = `LoopX: ${body.message}${body.hint ? ` (${body.hint})` : ''}`;
      const actions = actionsFor(error);
      // A team store that does not answer: the views say so too, and the change is offered again, never dropped.
      if (error.code === 'team_unreachable') ctx.session.reach.noteFailure(error);
      ctx.session.followMove(error);
      const retry = RETRYABLE.has(error.code) ? [RETRY] : [];
      const show = error.exitCode === EXIT.refused ? vscode.window.showWarningMessage : vscode.window.showErrorMessage;
      const choice = show(text, ...retry, ...actions.map((a) => a.title));
      // A busy store (or a team server back) is worth one more try when the person asks: the same command, same arguments.
      if (retry.length) return (await choice) === RETRY ? runSafely(ctx, def, args) : undefined;
      void Promise.resolve(choice).then((picked) => {
        const action = actions.find((a) => a.title === picked);
        // The button acts in the folder the refusal came from (ids alone are ambiguous in a multi-root workspace).
        const ours = (Object.values(COMMANDS) as string[]).includes(action?.command ?? '');
        if (action)
          void vscode.commands.executeCommand(
            action.command,
            ...(ours ? [inFolder(ctx.session.root, ...(action.args ?? []))] : (action.args ?? [])),
          );
      });
      return undefined;
    }
    ctx.log.error(`${def.id} failed`, thrown);
    const choice = await vscode.window.showErrorMessage(`LoopX: ${body.message}`, 'Show Logs');
    if (choice === 'Show Logs') ctx.log.show();
    return undefined;
  }
}

const RETRY = 'Retry';

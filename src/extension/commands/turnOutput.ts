import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { turnDir } from '../../kernel/turns/turnRecord';
import { listTurns } from '../../kernel/turns/turnQueries';
import { getTurn } from '../../kernel/turns/turnQueries';
import { parseId } from '../../kernel/validate';
import { clean, relativeTime } from '../../protocol/display';
import { turnOutcomeWords } from '../../shared/turnOutcomeWords';
import { type CommandDefinition, kernelOf } from './context';
import type { Services } from '../services';
import { COMMANDS } from './commandIds';
import { parseArg } from './args';
import { resolveTodo } from './pickers';

/**
 * What an agent did on a todo: the turns that worked on it (newest first), and for the one picked, the output its
 * host wrote (`.loopx/turns/<id>/output.log`). From a todo in the Goals view, a board card's detail or the palette.
 */
export const showTurns: CommandDefinition = {
  id: COMMANDS.showTurns,
  async run(ctx, arg) {
    const given = parseArg(arg);
    if (given.kind === 'id' && /^r\d+$/i.test(given.id)) return openTurnOutput(ctx, given.id);
    const todo = await resolveTodo(ctx, arg, ['open', 'claimed', 'blocked', 'shipped', 'killed'], 'Show Turns of');
    if (!todo) return undefined;
    const turns = kernelOf(ctx).read((db) => listTurns(db, { todoId: todo.id, limit: 50 }).turns);
    if (!turns.length) {
      void vscode.window.showInformationMessage(`LoopX: no agent turn has worked on ${todo.id} yet.`);
      return undefined;
    }
    const now = Date.now();
    const pick = await vscode.window.showQuickPick(
      turns.map((t) => ({
        label: `$(terminal) ${t.id} · ${clean(t.agent)} on ${clean(t.host)}`,
        description: `${turnOutcomeWords(t.resultKind)}${t.exitCode !== null ? ` · exit code ${t.exitCode}` : ''}`,
        detail: `started ${relativeTime(t.startedAt, now)}${t.endedAt ? `, ended ${relativeTime(t.endedAt, now)}` : ''}`,
        turnId: t.id,
      })),
      { title: `LoopX: turns on ${todo.id} ${clean(todo.title)}`, placeHolder: 'Pick a turn to open its output' },
    );
    return pick ? openTurnOutput(ctx, pick.turnId) : undefined;
  },
};

/** Opens a turn's output log (read from the store's folder, never a path from outside), or says why there is none. */
export async function openTurnOutput(ctx: Services, turnId: string): Promise<vscode.TextEditor | undefined> {
  const turn = kernelOf(ctx).read((db) => getTurn(db, parseId('turn', turnId)));
  const path = join(ctx.session.root, turnDir(turn.id), 'output.log');
  if (!existsSync(path)) {
    void vscode.window.showInformationMessage(
      `LoopX: turn ${turn.id} left no output here (it ran outside this workspace's terminals, or its host wrote nothing).`,
    );
    return undefined;
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
  return vscode.window.showTextDocument(doc, { preview: true });
}

import * as vscode from 'vscode';
import { type CommandDefinition } from './context';
import { COMMANDS } from './commandIds';
import { type CommandArg, parseArg } from './args';

/** The id a view item (or an id argument) stands for: G3, T12, Q2, M1. */
function idOf(arg: CommandArg): string | undefined {
  switch (arg.kind) {
    case 'goal':
      return arg.goal.id;
    case 'todo':
      return arg.todo.id;
    case 'gate':
      return arg.gate.id;
    case 'monitor':
      return arg.monitor.id;
    case 'id':
      return arg.id;
    default:
      return undefined;
  }
}

/** Copy ID: a row's id to the clipboard (for a terminal, a commit message, an agent's prompt). */
export const copyId: CommandDefinition = {
  id: COMMANDS.copyId,
  async run(_ctx, arg) {
    const id = idOf(parseArg(arg));
    if (!id) return undefined;
    try {
      await vscode.env.clipboard.writeText(id);
      vscode.window.setStatusBarMessage(`$(copy) LoopX: copied ${id}`, 3000);
    } catch {
      // A browser may refuse the clipboard: show the id to copy by hand.
      void vscode.window.showInformationMessage(`LoopX: ${id} (the clipboard is not available here)`);
    }
    return id;
  },
};

/** Open on Board: a todo's card with its detail open, or a goal's cards. */
export const openOnBoard: CommandDefinition = {
  id: COMMANDS.openOnBoard,
  run(ctx, arg) {
    ctx.session.requireKernel();
    const given = parseArg(arg);
    const target =
      given.kind === 'todo'
        ? { todoId: given.todo.id, goalId: null }
        : given.kind === 'goal'
          ? { todoId: null, goalId: given.goal.id }
          : given.kind === 'id' && /^t\d+$/i.test(given.id)
            ? { todoId: given.id.toUpperCase(), goalId: null }
            : given.kind === 'id' && /^g\d+$/i.test(given.id)
              ? { todoId: null, goalId: given.id.toUpperCase() }
              : undefined;
    ctx.log.info(`open on board: ${target?.todoId ?? target?.goalId ?? 'the board'}`);
    return ctx.board.show(ctx, target);
  },
};

/** Filter Todos…: the Goals view shows only todos whose id or title contains the text (empty: all again). */
export const filterTodos: CommandDefinition = {
  id: COMMANDS.filterTodos,
  async run(ctx, arg) {
    const text =
      typeof arg === 'string'
        ? arg
        : await vscode.window.showInputBox({
            title: 'LoopX: Filter Todos',
            prompt: 'Show only todos whose id or title contains this (empty: show all)',
            value: ctx.goalsFilter.text,
            placeHolder: 'e.g. parser, T12',
          });
    if (text === undefined) return undefined;
    ctx.goalsFilter.set(text);
    return ctx.goalsFilter.text;
  },
};

export const clearTodoFilter: CommandDefinition = {
  id: COMMANDS.clearTodoFilter,
  run(ctx) {
    ctx.goalsFilter.set('');
    return '';
  },
};

import * as vscode from 'vscode';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { applyGoalSpec } from '../../kernel/goals/goalSpec/apply';
import { exportGoalSpec } from '../../kernel/goals/goalSpec/export';
import { goalSpecFromText, readGoalFile, workspaceRelative } from '../../goalFile/read';
import { defaultGoalFilePath, formatGoalFile } from '../../goalFile/format';
import { GOAL_FILE_PATTERN } from '../goalFiles/goalFileSupport';
import { reviewUri, todoUri } from '../views/virtualDocuments';
import { parseId } from '../../kernel/validate';
import { resolveGoal } from './pickers';
import { getGoal } from '../../kernel/goals/goalQueries';
import { getTodo } from '../../kernel/todos/todoQueries';

function uriOf(arg: unknown): vscode.Uri | undefined {
  if (typeof arg === 'string') return vscode.Uri.parse(arg);
  if (arg instanceof vscode.Uri) return arg;
  return vscode.window.activeTextEditor?.document.uri;
}

/**
 * Apply Goal File (the "Apply to store" lens and quick fix): saves the file if it has unsaved edits, then applies it
 * as the person at the keyboard through the kernel, like `loopx goal apply`. Todos removed from the file are kept.
 */
export const applyGoalFile: CommandDefinition = {
  id: COMMANDS.applyGoalFile,
  async run(ctx, arg) {
    const uri = uriOf(arg);
    if (!uri || uri.scheme !== 'file' || !GOAL_FILE_PATTERN.test(uri.fsPath)) {
      void vscode.window.showInformationMessage('LoopX: open a goal file (a file named *.goal.md) to apply it.');
      return undefined;
    }
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    const kernel = kernelOf(ctx);
    if (doc?.isDirty && !(await doc.save())) {
      // VS Code says why a save failed (a newer file on disk, permissions); nothing is applied from an unsaved file.
      void vscode.window.showWarningMessage(
        `LoopX: ${vscode.workspace.asRelativePath(uri)} could not be saved, so nothing was applied. Save it, then apply it again.`,
      );
      return undefined;
    }
    const path = workspaceRelative(kernel.root, uri.fsPath, { mustExist: true });
    // What the person sees is what is applied: an open document's text (just saved), not a re-read of the disk, which
    // a remote window's save may not have reached yet.
    const { spec } = doc ? goalSpecFromText(doc.getText(), path) : readGoalFile(uri.fsPath, path);
    const result = applyGoalSpec(kernel, spec, { path });
    const { plan } = result;
    ctx.log.info(`applied ${path} to ${result.goalId}: ${plan.changeCount} changes, ${result.events} events`);
    const kept = plan.removed.length
      ? ` ${plan.removed.length} todo${plan.removed.length === 1 ? '' : 's'} no longer in the file ${plan.removed.length === 1 ? 'was' : 'were'} kept.`
      : '';
    const what = plan.changeCount === 0 ? 'nothing to change' : `${plan.changeCount} change${plan.changeCount === 1 ? '' : 's'}`;
    void vscode.window
      .showInformationMessage(`LoopX: applied ${path} to ${result.goalId}: ${what}.${kept}`, 'Open Board')
      .then((c) => c && vscode.commands.executeCommand(COMMANDS.openBoard));
    return result;
  },
};

/** Plan in a File… (a goal's row, the palette, the step after New Goal): the goal as a goal file, opened to edit. */
export const planInFile: CommandDefinition = {
  id: COMMANDS.planInFile,
  async run(ctx, arg) {
    const goal = await resolveGoal(ctx, arg, (g) => g.status !== 'done' && g.status !== 'stopped');
    return goal && writeGoalFile(ctx, goal.id);
  },
};

/** Writes the goal as loopx/<title>.goal.md and opens it. */
export async function writeGoalFile(ctx: Parameters<CommandDefinition['run']>[0], goalId: string): Promise<vscode.Uri | undefined> {
  const kernel = kernelOf(ctx);
  const spec = kernel.read((db) => exportGoalSpec(db, goalId));
  const file = join(kernel.root, defaultGoalFilePath(spec.title));
  if (existsSync(file)) {
    // Never over a file the person may have edited: open what is there.
    void vscode.window.showInformationMessage(`LoopX: ${vscode.workspace.asRelativePath(file)} exists already; it is opened as it is.`);
    await vscode.window.showTextDocument(vscode.Uri.file(file));
    return undefined;
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, formatGoalFile(spec));
  const uri = vscode.Uri.file(file);
  await vscode.window.showTextDocument(uri);
  return uri;
}

/**
 * Open Todo: where a `T12` link in Markdown or a code comment leads: the todo's live state as a read-only document
 * (a `G3` opens the goal's review packet). Unknown ids say so.
 */
export const openTodo: CommandDefinition = {
  id: COMMANDS.openTodo,
  async run(ctx, arg) {
    const kernel = kernelOf(ctx);
    const text = typeof arg === 'string' ? arg.trim() : '';
    if (/^g/i.test(text)) {
      const goal = kernel.read((db) => getGoal(db, parseId('goal', text)));
      await vscode.commands.executeCommand('markdown.showPreview', reviewUri(ctx.session.root, goal.id));
      return goal.id;
    }
    const todo = kernel.read((db) => getTodo(db, parseId('todo', text)));
    const doc = await vscode.workspace.openTextDocument(todoUri(ctx.session.root, todo.id));
    await vscode.window.showTextDocument(doc, { preview: true });
    return todo.id;
  },
};

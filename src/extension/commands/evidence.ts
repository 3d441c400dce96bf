import * as vscode from 'vscode';
import { addEvidence as addEvidenceOp } from '../../kernel/evidence/evidence';
import { parseArg } from './args';
import { evidenceUri } from '../views/virtualDocuments';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { ask, resolveTodo } from './pickers';

export const addEvidence: CommandDefinition = {
  id: COMMANDS.addEvidence,
  async run(ctx, arg) {
    const todo = await resolveTodo(ctx, arg, ['open', 'claimed', 'blocked', 'shipped'], 'Add Evidence for');
    if (!todo) return undefined;
    const summary = await ask({ title: `LoopX: Evidence for ${todo.id}`, prompt: 'What was done and how it was checked', required: true });
    if (summary === undefined) return undefined;
    const files = await vscode.window.showOpenDialog({
      title: 'Artifacts (optional): workspace files to record with their SHA-256',
      canSelectMany: true,
      defaultUri: vscode.Uri.file(ctx.session.root),
      openLabel: 'Attach',
    });
    const artifacts = (files ?? []).map((f) => f.fsPath);
    return addEvidenceOp(kernelOf(ctx), { todoId: todo.id, summary, kind: 'review', artifacts });
  },
};

export const showEvidence: CommandDefinition = {
  id: COMMANDS.showEvidence,
  async run(ctx, arg) {
    const node = parseArg(arg);
    if (node.kind !== 'evidence') return undefined;
    // Rendered, as a person reads it; the Markdown source is one click away in the preview's toolbar.
    const uri = evidenceUri(node.evidence, ctx.session.root);
    try {
      await vscode.commands.executeCommand('markdown.showPreview', uri);
    } catch {
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
    }
    return uri;
  },
};

export const openArtifact: CommandDefinition = {
  id: COMMANDS.openArtifact,
  async run(ctx, arg) {
    const node = parseArg(arg);
    if (node.kind !== 'artifact') return undefined;
    const uri = vscode.Uri.joinPath(vscode.Uri.file(ctx.session.root), ...node.artifact.path.split('/'));
    try {
      await vscode.workspace.fs.stat(uri);
    } catch {
      void vscode.window.showWarningMessage(`LoopX: ${node.artifact.path} no longer exists in the workspace.`);
      return undefined;
    }
    return vscode.commands.executeCommand('vscode.open', uri);
  },
};

import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/extension/commands/commandIds';
import { app, recordFigure, until, withAnswers, workspaceRoot } from './support';

const TEXT = `---
title: Goal file from the editor
scope: [loopx/**]
todos:
  - key: first
    title: First step in the file
    priority: 1
  - key: second
    title: Second step in the file
    after: [first]
---

Background from the file.
`;

const lensTitles = async (uri: vscode.Uri) =>
  ((await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? []).map(
    (l) => l.command?.title ?? '',
  );

suite('goal files in the editor', () => {
  test('the language server starts for a goal file: a bad key squiggles with did-you-mean, completion, lenses, apply, hover live', async () => {
    const loopx = await app();
    mkdirSync(join(workspaceRoot(), 'loopx'), { recursive: true });
    const file = join(workspaceRoot(), 'loopx', `editor-${Date.now()}.goal.md`);
    writeFileSync(file, TEXT);
    const uri = vscode.Uri.file(file);
    const started = performance.now();
    const editor = await vscode.window.showTextDocument(uri);
    assert.equal(await loopx.goalFiles.ready(), true, 'the goal-file language server started');
    await until(async () => (await lensTitles(uri)).includes('Apply to store · 3 changes'), 'the Apply lens', 30_000);
    recordFigure('goalFileOpenToFirstLens', performance.now() - started, 'ms');

    // A bad key: an error at the key, with the did-you-mean quick fix.
    await editor.edit((e) => e.replace(new vscode.Range(6, 4, 6, 12), 'priorty'));
    const diagnostic = await until(
      () => vscode.languages.getDiagnostics(uri).find((d) => d.message.includes("did you mean 'priority'")),
      'the unknown-key squiggle',
      10_000,
    );
    assert.equal(diagnostic.severity, vscode.DiagnosticSeverity.Error);
    assert.deepEqual([diagnostic.range.start.line, diagnostic.range.start.character], [6, 4]);
    const fixes = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, diagnostic.range);
    const fix = fixes.find((f) => f.title === "Change to 'priority'");
    assert.ok(fix?.edit, 'a quick fix that renames the key');
    await vscode.workspace.applyEdit(fix.edit);
    await until(
      () => vscode.languages.getDiagnostics(uri).length === 0 || undefined,
      `the squiggle to go (${vscode.languages
        .getDiagnostics(uri)
        .map((d) => d.message)
        .join('; ')})`,
      10_000,
    );

    // Completion of todo keys in `after`.
    const completions = await vscode.commands.executeCommand<vscode.CompletionList>(
      'vscode.executeCompletionItemProvider',
      uri,
      new vscode.Position(8, 12),
    );
    const labels = completions.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    assert.ok(labels.includes('first') && labels.includes('second'), `todo keys offered in after: ${labels.join(', ')}`);

    // Saved first, and again until it takes: a save through the window (a browser in code-server) can come back
    // unsaved on a loaded machine, and what this test is about is the apply (the browser goal-file scenario clicks
    // the lens on an unsaved file). The apply command says so itself when its own save fails.
    await until(async () => (await editor.document.save()) || !editor.document.isDirty || undefined, 'the goal file saved', 30_000);
    // Apply to store, as the lens does; the Goals view and board model follow.
    const before = loopx.model.goals().length;
    const applied = await withAnswers({}, async () => vscode.commands.executeCommand(COMMANDS.applyGoalFile, uri.toString()));
    const goal = await until(
      () => loopx.model.goals().find((g) => g.title === 'Goal file from the editor'),
      `the goal in the model (the apply said: ${applied.prompts.join(' | ')})`,
    );
    assert.equal(loopx.model.goals().length, before + 1);
    assert.deepEqual(
      loopx.model
        .todos(goal.id, 'open')
        .map((t) => t.title)
        .sort(),
      ['First step in the file', 'Second step in the file'],
    );
    // The save goes through the window (a browser in code-server), so the disk may lag the apply by a moment.
    await until(
      () => readFileSync(file, 'utf8') === editor.document.getText() || undefined,
      'the file on disk to be what was applied (saved)',
      10_000,
    );
    await until(async () => (await lensTitles(uri)).includes(`In sync with ${goal.id}`), 'the In sync lens', 30_000);

    // Hover on a todo key shows its live state.
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(4, 12));
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /\*\*T\d+\*\* First step in the file[\s\S]*status: open/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  test('a T12 in a Markdown file links to the todo: Open Todo shows its live state in a read-only document', async () => {
    const loopx = await app();
    const goal = loopx.model.goals().find((g) => g.title === 'Goal file from the editor');
    assert.ok(goal, 'the goal the previous test applied');
    const todo = loopx.model.todos(goal.id, 'open').find((t) => t.title === 'First step in the file');
    assert.ok(todo);
    const notes = join(workspaceRoot(), `notes-${Date.now()}.md`);
    writeFileSync(notes, `# Notes\n\nNext: ${todo.id}, then the rest of ${goal.id}.\n`);
    const uri = vscode.Uri.file(notes);
    await vscode.window.showTextDocument(uri);
    const links = await until(
      async () => {
        const found = await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', uri);
        return found.length >= 2 ? found : undefined;
      },
      'links on the ids',
      15_000,
    );
    const target = links[0]?.target;
    assert.equal(target?.scheme, 'command');
    assert.equal(target?.path, COMMANDS.openTodo);
    const [args] = JSON.parse(target?.query ?? '[]') as unknown[];
    await vscode.commands.executeCommand(COMMANDS.openTodo, args);
    const shown = await until(
      () => vscode.window.activeTextEditor?.document.uri.scheme === 'loopx-todo' && vscode.window.activeTextEditor.document,
      'the todo document',
    );
    assert.match(shown.getText(), new RegExp(`\\*\\*${todo.id}\\*\\* First step in the file[\\s\\S]*status: open`));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { Kernel } from '../../../src/kernel/kernel';
import { askGate } from '../../../src/kernel/gates/gates';
import { releaseTodo } from '../../../src/kernel/todos/claims';
import type { Todo } from '../../../src/kernel/model';
import type { GoalsNode } from '../../../src/extension/views/goalsTree';
import type { FolderNode } from '../../../src/extension/views/folderTree';
import type { RunOutcome } from '../../../src/extension/turns/turnRunner';
import { inFolder } from '../../../src/extension/commands/inFolder';
import { COMMANDS } from '../../../src/extension/commands/commandIds';
import { REPO, app, until, withAnswers } from '../support';
import { WORKSPACE_FILE_SETTINGS, WORKSPACE_FILE_TERMINAL_ENV } from '../../e2e/multiRootWorkspace';
import { DEFAULT_HOSTS } from '../../../src/runtime/hosts';
import { ignoredWorkspaceSettings, loopxSetting, warnOfIgnoredSettings } from '../../../src/extension/loopxSettings';

const label = (item: vscode.TreeItem) => (typeof item.label === 'string' ? item.label : (item.label?.label ?? ''));
const folderRoot = (name: string) => {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.name === name);
  if (!folder) throw new Error(`no workspace folder ${name}`);
  return folder.uri.fsPath;
};
const todoStatus = (name: string, id: string) => {
  const kernel = Kernel.open(folderRoot(name), { actor: { name: 'probe', kind: 'agent' } });
  try {
    return kernel.read((db) => db.prepare('SELECT status, owner FROM todos WHERE id = ?').get(id)) as {
      status: string;
      owner: string | null;
    };
  } finally {
    kernel.close();
  }
};

suite('multi-root workspace', () => {
  test('each folder with a store opens its own; the Goals view groups them by folder', async () => {
    const loopx = await app();
    await until(() => loopx.folders.withStore.length === 2, 'both stores to open');
    const tree = loopx.goalsTree;
    const top = tree.getChildren();
    assert.deepEqual(
      top.map((n) => label(tree.getTreeItem(n))),
      ['alpha', 'beta'],
    );
    const goalsOf = (node: GoalsNode | FolderNode) => tree.getChildren(node).map((n) => tree.getTreeItem(n));
    const [alpha, beta] = [goalsOf(top[0] as FolderNode), goalsOf(top[1] as FolderNode)];
    assert.deepEqual([alpha.map(label), beta.map(label)], [['G1 Alpha goal'], ['G1 Beta goal']]);
    assert.notEqual(alpha[0]?.id, beta[0]?.id, 'two folders’ G1 are two tree items');
    assert.match(String(tree.getTreeItem(top[1] as FolderNode).description), /1 goal · 0\/3/);
  });

  test('the LoopX settings of a workspace file inside a LoopX workspace are not used (agents can write it); the person is told which', async () => {
    const loopx = await app();
    const file = vscode.workspace.workspaceFile;
    assert.ok(file && file.fsPath.startsWith(folderRoot('alpha')), 'the window was opened from a workspace file inside alpha');
    // VS Code applies them to the window as it would any workspace setting…
    const hosts = vscode.workspace.getConfiguration('loopx.hosts');
    assert.equal(hosts.get('custom.command'), WORKSPACE_FILE_SETTINGS['loopx.hosts.custom.command']);
    assert.equal(vscode.workspace.getConfiguration('loopx.autoRun').get('enabled'), true);
    // …and LoopX does not: the custom host's command is the default one, and nothing runs on its own.
    assert.equal(loopx.turns.hostSettings().custom, DEFAULT_HOSTS.custom);
    assert.equal(loopxSetting('loopx.autoRun.enabled'), false);
    assert.equal(loopx.autoRunner.started.length, 0);
    // What the person reads: which file, and where the settings go instead.
    const keys = Object.keys(WORKSPACE_FILE_SETTINGS);
    assert.deepEqual(ignoredWorkspaceSettings(['loopx.defaultHost', ...keys]), keys);
    const logged: string[] = [];
    const { prompts } = await withAnswers({}, async () => warnOfIgnoredSettings(keys, { warn: (m) => logged.push(m) }).dispose());
    assert.deepEqual(prompts, [
      'warning: LoopX does not use the LoopX settings in alpha.code-workspace: the file is inside a LoopX workspace, where agents can write. Put them in your user settings, or open the folder itself instead of the workspace file. [Open User Settings]',
    ]);
    assert.match(logged.join('\n'), /alpha\.code-workspace sets loopx\.hosts\.custom\.command, loopx\.autoRun\.enabled: not used/);
  });

  test('a terminal of the window gets the workspace file’s variables (so the turn’s test above could fail)', async () => {
    const seen = join(mkdtempSync(join(tmpdir(), 'loopx-env-')), 'env.txt');
    const terminal = vscode.window.createTerminal({ name: 'plain', shellPath: '/bin/sh', shellArgs: ['-c', `env > '${seen}'`] });
    try {
      await until(() => existsSync(seen) && readFileSync(seen, 'utf8').includes('PATH='), 'the plain terminal to write its environment');
      assert.match(readFileSync(seen, 'utf8'), new RegExp(`^LOOPX_PLANTED=${WORKSPACE_FILE_TERMINAL_ENV.LOOPX_PLANTED}$`, 'm'));
    } finally {
      terminal.dispose();
    }
  });

  test('the status bar has a meter per folder’s goal and one gate badge that sums the folders', async () => {
    const loopx = await app();
    await until(() => loopx.statusBar.snapshot().length === 2, 'two meters');
    assert.deepEqual(
      loopx.statusBar
        .snapshot()
        .map((s) => s.text)
        .sort(),
      ['$(pulse) alpha: G1 0/20', '$(pulse) beta: G1 0/20'],
    );
    assert.equal(loopx.statusBar.gateBadge(), '$(bell-dot) 1 gate');
    const codex = Kernel.open(folderRoot('alpha'), { actor: { name: 'codex', kind: 'agent' } });
    askGate(codex, { goalId: 'G1', question: 'Ship alpha?' });
    codex.close();
    await until(() => loopx.statusBar.gateBadge() === '$(bell-dot) 2 gates', 'the badge to count both folders');
    assert.equal(loopx.gatesTree.pendingCount(), 2);
  });

  test('a command run on a view item acts in that item’s folder', async () => {
    const loopx = await app();
    const tree = loopx.goalsTree;
    const beta = tree.getChildren().find((n) => label(tree.getTreeItem(n)) === 'beta') as FolderNode;
    const [goal] = tree.getChildren(beta);
    const ready = tree.getChildren(goal).find((n) => label(tree.getTreeItem(n)) === 'Ready');
    const t1 = tree.getChildren(ready).find((n) => label(tree.getTreeItem(n)) === 'T1 Beta todo');
    assert.ok(t1, 'beta’s T1 is in the tree');
    const claimed = await withAnswers({}, async () => vscode.commands.executeCommand<Todo>(COMMANDS.claimTodo, t1));
    assert.equal(claimed.result.owner, 'ada');
    assert.deepEqual([todoStatus('beta', 'T1').status, todoStatus('alpha', 'T1').status], ['claimed', 'open']);
    releaseTodo(loopx.folders.byRoot(folderRoot('beta'))?.session.requireKernel() as Kernel, 'T1');
  });

  test('an id alone is ambiguous: the command asks which folder and acts there', async () => {
    const { result, prompts } = await withAnswers({ picks: [(items) => items.find((i) => i.label.endsWith(' alpha'))] }, async () =>
      vscode.commands.executeCommand<Todo>(COMMANDS.claimTodo, 'T1'),
    );
    assert.match(prompts[0] ?? '', /^pick: LoopX: .*\[\$\(root-folder\) alpha \| \$\(root-folder\) beta\]$/);
    assert.equal(result.owner, 'ada');
    assert.deepEqual([todoStatus('alpha', 'T1').status, todoStatus('beta', 'T1').status], ['claimed', 'open']);
    const loopx = await app();
    releaseTodo(loopx.folders.byRoot(folderRoot('alpha'))?.session.requireKernel() as Kernel, 'T1');
  });

  test('a turn runs in its folder: the terminal starts there and the turn is in that folder’s store', async () => {
    const agent = join(REPO, 'test', 'extension', 'fixtures', 'scriptedAgent.mjs');
    const hosts = vscode.workspace.getConfiguration('loopx.hosts');
    const seen = join(mkdtempSync(join(tmpdir(), 'loopx-env-')), 'env.txt');
    await hosts.update('custom.command', `env > '${seen}'; node ${agent} {prompt} ship`, vscode.ConfigurationTarget.Global);
    try {
      const outcome = await vscode.commands.executeCommand<RunOutcome>(
        COMMANDS.runTurn,
        inFolder(folderRoot('beta'), { goalId: 'G1', todoId: 'T3', host: 'custom' }),
      );
      assert.ok(outcome.started, 'a turn started');
      assert.equal((outcome.terminal.creationOptions as vscode.TerminalOptions).cwd, folderRoot('beta'));
      const turn = await outcome.finished;
      assert.equal(turn.resultKind, 'validated_completion');
      assert.equal(todoStatus('beta', 'T3').status, 'shipped');
      assert.ok(existsSync(join(folderRoot('beta'), '.loopx', 'turns', turn.id, 'prompt.md')));
      assert.equal(existsSync(join(folderRoot('alpha'), '.loopx', 'turns')), false, 'nothing of the turn in alpha');
      // The window's workspace file is in alpha, where agents write: its terminal variables stay out of the turn's host.
      const env = readFileSync(seen, 'utf8');
      assert.match(env, /^LOOPX_TURN=R\d+$/m);
      assert.doesNotMatch(env, /LOOPX_PLANTED/);
    } finally {
      await hosts.update('custom.command', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  test('the board opens on the folder it is asked for, named in its title', async () => {
    const loopx = await app();
    await vscode.commands.executeCommand(COMMANDS.openBoard, inFolder(folderRoot('beta')));
    const board = await until(() => loopx.board, 'the board');
    assert.equal(board.ctx.session.root, folderRoot('beta'));
    assert.equal(board.panel.title, 'LoopX Board · beta');
    board.dispose();
  });

  test('the board’s goal selector spans folders: picking another folder’s goal switches the board to that store', async () => {
    const loopx = await app();
    await vscode.commands.executeCommand(COMMANDS.openBoard, inFolder(folderRoot('beta')));
    const board = await until(() => loopx.board, 'the board');
    const alphaIndex = vscode.workspace.workspaceFolders?.find((f) => f.name === 'alpha')?.index as number;
    const gammaIndex = vscode.workspace.workspaceFolders?.find((f) => f.name === 'gamma')?.index as number;
    const refusedBefore = board.refused.length;
    await board.receive({ type: 'switchFolder', folder: gammaIndex });
    assert.equal(board.refused.length, refusedBefore + 1, 'a folder without a store is refused');
    assert.equal(board.ctx.session.root, folderRoot('beta'));
    await board.receive({ type: 'switchFolder', folder: alphaIndex });
    assert.equal(board.ctx.session.root, folderRoot('alpha'));
    assert.equal(board.panel.title, 'LoopX Board · alpha');
    assert.equal(loopx.board, board, 'the same panel, now on alpha');
    board.dispose();
  });

  test('Initialize goes to the folder without a store, and its goals join the view', async () => {
    const loopx = await app();
    const created = await vscode.commands.executeCommand(COMMANDS.initialize);
    assert.equal(created, true);
    assert.ok(existsSync(join(folderRoot('gamma'), '.loopx', 'loopx.db')));
    await until(() => loopx.folders.withStore.length === 3, 'the third store');
    assert.deepEqual(
      loopx.goalsTree.getChildren().map((n) => label(loopx.goalsTree.getTreeItem(n))),
      ['alpha', 'beta', 'gamma'],
    );
  });

  test('a folder follows its team pointer written and removed in a terminal, and the team store setting', async () => {
    const loopx = await app();
    const root = folderRoot('gamma');
    const gamma = loopx.folders.byRoot(root);
    assert.ok(gamma?.session.kernel, 'gamma has its own store (the test before made it)');
    const failure = () => gamma.session.lastFailure?.message ?? '';
    const setting = () => vscode.workspace.getConfiguration('loopx.team');
    // A port nothing listens on: a team store that cannot be reached, which a new replica must reach to open.
    const pointer = join(root, '.loopx', 'team.json');
    writeFileSync(pointer, JSON.stringify({ version: 1, database: 'postgresql://ada@127.0.0.1:1/gammateam' }));
    try {
      await until(() => failure().includes('127.0.0.1:1/gammateam'), 'the folder to open the team store the pointer names');
      assert.equal(gamma.session.kernel, undefined, 'the folder’s own store is no longer the one shown');
      assert.match(failure(), /cannot be reached/);
      await setting().update('databaseUrl', 'postgresql://ada@127.0.0.1:2/elsewhere', vscode.ConfigurationTarget.Global);
      await until(() => failure().includes('127.0.0.1:2/elsewhere'), 'the folder to open the store at the setting’s address');
      await setting().update('databaseUrl', undefined, vscode.ConfigurationTarget.Global);
      await until(() => failure().includes('127.0.0.1:1/gammateam'), 'the pointer’s address again once the setting is cleared');
    } finally {
      await setting().update('databaseUrl', undefined, vscode.ConfigurationTarget.Global);
      rmSync(pointer, { force: true });
      rmSync(join(root, '.loopx', 'team-replica.db'), { force: true });
    }
    // The pointer removed (`loopx team leave`): the folder's own store again, with nothing said of the team store.
    await until(() => gamma.session.kernel?.storeFile === join(root, '.loopx', 'loopx.db'), 'the folder’s own store to open again');
    assert.equal(gamma.session.lastFailure, undefined);
    assert.equal(loopx.folders.withStore.length, 3);
  });
});

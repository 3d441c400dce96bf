import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { app, recordFigure, withAnswers, workspaceRoot } from './support';

suite('welcome and initialize', () => {
  test('activates fast and, without a store, shows nothing but the welcome view', async () => {
    const loopx = await app();
    recordFigure('activation', loopx.activationMs, 'ms');
    assert.equal(existsSync(join(workspaceRoot(), '.loopx')), false);
    assert.equal(loopx.session.kernel, undefined);
    assert.deepEqual(loopx.goalsTree.getChildren(), []);
    assert.deepEqual(loopx.gatesTree.getChildren(), []);
  });

  test('Initialize creates .loopx/, keeps it out of git and opens it; a second Initialize reuses it', async () => {
    const loopx = await app();
    // A git repository, as most workspaces are: the welcome view and the walkthrough promise .loopx/ is ignored.
    spawnSync('git', ['init', '-q'], { cwd: workspaceRoot() });
    const { result: created, prompts } = await withAnswers({}, async () => vscode.commands.executeCommand('loopx.initialize'));
    assert.equal(created, true);
    assert.ok(existsSync(join(workspaceRoot(), '.loopx', 'loopx.db')));
    assert.match(readFileSync(join(workspaceRoot(), '.gitignore'), 'utf8'), /^\.loopx\/$/m);
    assert.match(prompts.join('\n'), /initialized \.loopx\/ in this workspace\. It was added to \.gitignore\./);
    assert.ok(loopx.session.kernel, 'the store is open');
    assert.equal(await vscode.commands.executeCommand('loopx.initialize'), false);
    assert.equal(readFileSync(join(workspaceRoot(), '.gitignore'), 'utf8').match(/^\.loopx\/$/gm)?.length, 1);
  });

  test('opens the store with node:sqlite, the SQLite built into the editor: the extension carries no native driver', async () => {
    const loopx = await app();
    assert.equal(loopx.session.kernel?.db.driver, 'node:sqlite', `extension host on Node ${process.versions.node}`);
    // The harness names the VS Code build it started; each build runs on the Node its VS Code gives extensions.
    const profile = process.env.LOOPX_E2E_PROFILE;
    if (process.env.LOOPX_E2E_RESULTS) assert.ok(profile, 'the harness names its VS Code build');
    const node = { 'vscode-1.105': '22', 'vscode-1.139': '24' }[profile ?? ''];
    if (profile) assert.equal(process.versions.node.split('.')[0], node, `profile ${profile} on Node ${process.versions.node}`);
  });
});

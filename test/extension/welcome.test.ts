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
    assert.match(prompts.join('\n'), /initialised \.loopx\/ in this workspace\. It was added to \.gitignore\./);
    assert.ok(loopx.session.kernel, 'the store is open');
    assert.equal(await vscode.commands.executeCommand('loopx.initialize'), false);
    assert.equal(readFileSync(join(workspaceRoot(), '.gitignore'), 'utf8').match(/^\.loopx\/$/gm)?.length, 1);
  });

  test('opens the store with the driver this host provides: node:sqlite where the runtime has it', async () => {
    const loopx = await app();
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    const hasNodeSqlite = major > 22 || (major === 22 && minor >= 5);
    const expected = hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3';
    assert.equal(loopx.session.kernel?.db.driver, expected, `extension host on Node ${process.versions.node}`);
    // The harness names the VS Code build it started; each build must exercise the driver it exists for.
    const profile = process.env.LOOPX_E2E_PROFILE;
    if (process.env.LOOPX_E2E_RESULTS) assert.ok(profile, 'the harness names its VS Code build');
    if (profile) assert.equal(expected, profile === 'vscode-1.117' ? 'node:sqlite' : 'better-sqlite3', `profile ${profile}`);
  });
});

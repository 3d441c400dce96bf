import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { app, recordFigure, workspaceRoot } from './support';

suite('welcome and initialize', () => {
  test('activates fast and, without a store, shows nothing but the welcome view', async () => {
    const loopx = await app();
    recordFigure('activation', loopx.activationMs, 'ms');
    assert.equal(existsSync(join(workspaceRoot(), '.loopx')), false);
    assert.equal(loopx.session.kernel, undefined);
    assert.deepEqual(loopx.goalsTree.getChildren(), []);
    assert.deepEqual(loopx.gatesTree.getChildren(), []);
  });

  test('Initialize creates .loopx/ and opens it; a second Initialize reuses it', async () => {
    const loopx = await app();
    const created = await vscode.commands.executeCommand('loopx.initialize');
    assert.equal(created, true);
    assert.ok(existsSync(join(workspaceRoot(), '.loopx', 'loopx.db')));
    assert.ok(loopx.session.kernel, 'the store is open');
    assert.equal(await vscode.commands.executeCommand('loopx.initialize'), false);
  });
});

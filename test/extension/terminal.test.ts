import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { REPO, app, until } from './support';

/** Runs a shell snippet in a new integrated terminal (as a person's terminal gets its environment) and returns its output. */
async function inTerminal(script: string): Promise<string> {
  const out = join(mkdtempSync(join(tmpdir(), 'loopx-term-')), 'out.txt');
  const terminal = vscode.window.createTerminal({ name: 'loopx PATH probe', shellPath: '/bin/sh', shellArgs: ['-c', `{ ${script}; } > '${out}.part' 2>&1; mv '${out}.part' '${out}'`] });
  try {
    return await until(() => {
      try {
        return readFileSync(out, 'utf8');
      } catch {
        return undefined;
      }
    }, 'the terminal to write its output', 15_000);
  } finally {
    terminal.dispose();
  }
}

const addToPath = () => vscode.workspace.getConfiguration('loopx.terminal');

suite('terminals', () => {
  suiteTeardown(async () => {
    await addToPath().update('addCliToPath', undefined, vscode.ConfigurationTarget.Global);
  });

  test('an integrated terminal finds the bundled loopx first on PATH', async () => {
    await app();
    const out = await inTerminal('command -v loopx; loopx --version');
    const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    assert.deepEqual(out.trim().split('\n'), [join(REPO, 'bin', 'loopx'), version]);
  });

  test('turning the setting off takes it off PATH for new terminals', async () => {
    await app();
    await addToPath().update('addCliToPath', false, vscode.ConfigurationTarget.Global);
    const path = await inTerminal('printf %s "$PATH"');
    assert.ok(!path.split(':').includes(join(REPO, 'bin')), `PATH still has the bundled CLI: ${path}`);
    await addToPath().update('addCliToPath', undefined, vscode.ConfigurationTarget.Global);
    assert.ok((await inTerminal('printf %s "$PATH"')).split(':').includes(join(REPO, 'bin')));
  });
});

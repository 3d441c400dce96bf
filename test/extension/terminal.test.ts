import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { REPO, app, until, workspaceRoot } from './support';

/** Runs a shell snippet in a new integrated terminal (as a person's terminal gets its environment) and returns its output. */
async function inTerminal(script: string): Promise<string> {
  const out = join(mkdtempSync(join(tmpdir(), 'loopx-term-')), 'out.txt');
  const terminal = vscode.window.createTerminal({
    name: 'loopx PATH probe',
    shellPath: '/bin/sh',
    shellArgs: ['-c', `{ ${script}; } > '${out}.part' 2>&1; mv '${out}.part' '${out}'`],
  });
  try {
    return await until(
      () => {
        try {
          return readFileSync(out, 'utf8');
        } catch {
          return undefined;
        }
      },
      'the terminal to write its output',
      15_000,
    );
  } finally {
    terminal.dispose();
  }
}

const addToPath = () => vscode.workspace.getConfiguration('loopx.terminal');
const team = () => vscode.workspace.getConfiguration('loopx.team');

suite('terminals', () => {
  suiteTeardown(async () => {
    await addToPath().update('addCliToPath', undefined, vscode.ConfigurationTarget.Global);
    await team().update('databaseUrl', undefined, vscode.ConfigurationTarget.Global);
  });

  test("an integrated terminal finds loopx first on PATH: the bundled CLI on the editor's own runtime", async () => {
    const loopx = await app();
    const out = (await inTerminal('command -v loopx; loopx --version')).trim().split('\n');
    const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    assert.equal(out[1], version);
    const launcher = readFileSync(out[0] as string, 'utf8');
    assert.ok(out[0]?.endsWith('/bin/loopx') && out[0] !== join(REPO, 'bin', 'loopx'), `a launcher, not the checkout's bin: ${out[0]}`);
    assert.ok(launcher.includes(`exec '${process.execPath}' '${join(REPO, 'bin', 'loopx')}' "$@"`), launcher);
    // Same runtime, same SQLite driver as the extension, whatever node the terminal's PATH has.
    const doctor = JSON.parse(await inTerminal(`cd '${workspaceRoot()}' && loopx doctor --json`)) as {
      data: { checks: { name: string; detail: string }[] };
    };
    const store = doctor.data.checks.find((c) => c.name === 'store')?.detail ?? '';
    assert.match(store, new RegExp(`driver ${loopx.session.requireKernel().db.driver}`), store);
  });

  test('turning the setting off takes it off PATH for new terminals', async () => {
    await app();
    await addToPath().update('addCliToPath', false, vscode.ConfigurationTarget.Global);
    const path = await inTerminal('printf %s "$PATH"');
    assert.ok(!path.split(':').some((dir) => dir.endsWith('loopx.loopx/bin')), `PATH still has the launcher: ${path}`);
    await addToPath().update('addCliToPath', undefined, vscode.ConfigurationTarget.Global);
    assert.ok((await inTerminal('printf %s "$PATH"')).split(':').some((dir) => dir.endsWith('loopx.loopx/bin')));
  });

  test('the team store setting reaches new terminals and this window as LOOPX_DATABASE_URL; a password is refused', async () => {
    await app();
    const url = 'postgresql://ada@db.example:5432/loopx';
    await team().update('databaseUrl', url, vscode.ConfigurationTarget.Global);
    assert.equal((await inTerminal('printf %s "$LOOPX_DATABASE_URL"')).trim(), url);
    assert.equal(process.env.LOOPX_DATABASE_URL, url);
    // The PATH setting's own changes leave it in place.
    await addToPath().update('addCliToPath', false, vscode.ConfigurationTarget.Global);
    assert.equal((await inTerminal('printf %s "$LOOPX_DATABASE_URL"')).trim(), url);
    await addToPath().update('addCliToPath', undefined, vscode.ConfigurationTarget.Global);
    await team().update('databaseUrl', 'postgresql://ada:secret@db.example/loopx', vscode.ConfigurationTarget.Global);
    assert.equal((await inTerminal('printf %s "${LOOPX_DATABASE_URL:-unset}"')).trim(), 'unset');
    assert.equal(process.env.LOOPX_DATABASE_URL, undefined);
    await team().update('databaseUrl', undefined, vscode.ConfigurationTarget.Global);
    assert.equal((await inTerminal('printf %s "${LOOPX_DATABASE_URL:-unset}"')).trim(), 'unset');
  });
});

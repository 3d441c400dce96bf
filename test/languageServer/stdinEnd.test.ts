import { afterEach, expect, test } from 'vitest';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { LOOPX, REPO, loopx, workspace } from '../cli/harness';
import { LspClient } from './lspClient';
import { processAlive } from '../../src/runtime/launchers';

/**
 * An editor that dies without shutdown or exit leaves the server's stdin closed. The server exits then, even though
 * the editor's initialize named a process that still runs (here: a process that outlives the editor, as a pid reused
 * or an editor's launcher that stays up would).
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

async function serverWithLiveProcessId(args: string[], node?: string) {
  const ws = workspace();
  cleanups.push(() => ws.dispose());
  loopx(['init'], { cwd: ws.root });
  const alive = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120_000)'], { stdio: 'ignore' });
  cleanups.push(() => alive.kill('SIGKILL'));
  const client = new LspClient(process.env, args, node);
  cleanups.push(() => client.dispose());
  await client.initialize(ws.root, 'other', alive.pid);
  return { client, alive };
}

test('`loopx lsp` exits when its stdin ends, though the processId it was given is alive', async () => {
  const { client, alive } = await serverWithLiveProcessId([LOOPX, 'lsp'], process.execPath);
  client.closeInput();
  expect(await client.exited).toBe(1); // no shutdown was asked: exit code 1, as the protocol says
  expect(processAlive(alive.pid as number)).toBe(true);
});

test('the bundle an editor starts with --stdio exits the same way; after shutdown its exit code is 0', async () => {
  const { client } = await serverWithLiveProcessId([join(REPO, 'dist', 'languageServer.js'), '--stdio']);
  await client.request('shutdown', null);
  client.closeInput();
  expect(await client.exited).toBe(0);
});

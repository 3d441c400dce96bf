import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { LoopxError } from '../errors';
import { parseSetup, runWorktreeSetup } from './worktreeSetup';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function repo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopx-setup-'));
  dirs.push(dir);
  execFileSync('git', ['init', '-q', dir]);
  return dir;
}

async function refusal(fn: () => unknown): Promise<{ code: string; message: string; data: unknown }> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof LoopxError) return { code: e.code, message: e.message, data: e.data };
    throw e;
  }
  throw new Error('not refused');
}

function setupInput() {
  const worktree = repo();
  const logFile = join(worktree, '..', `${worktree.split('/').pop()}-setup.log`);
  dirs.push(logFile);
  return { worktree, todoId: 'T1', goalId: 'G1', logFile };
}

test('a setup that outlives its time limit is stopped and refuses the turn in words; the next try runs it again', async () => {
  const input = setupInput();
  const { worktree, logFile } = input;
  const slow = await refusal(() => runWorktreeSetup({ ...input, command: 'echo starting; sleep 30; echo never', limitMs: 300 }));
  expect(slow.code).toBe('setup_failed');
  expect(slow.message).toMatch(/did not finish within 1 s and was stopped in the worktree of T1; the turn did not start/);
  expect(slow.data).toMatchObject({ timedOut: true });
  // Its output is kept, and nothing marks the worktree as set up: the next turn tries again.
  expect(readFileSync(logFile, 'utf8')).toContain('starting');
  expect(await runWorktreeSetup({ ...input, command: 'true' })).toEqual({ ran: true });
  expect(await runWorktreeSetup({ ...input, command: 'true' })).toEqual({ ran: false });
  // A changed command runs again; the marker lives in the git folder, never in the working tree.
  expect(await runWorktreeSetup({ ...input, command: 'true && true' })).toEqual({ ran: true });
  expect(existsSync(join(worktree, '.git', 'loopx-setup-done'))).toBe(true);
  expect(execFileSync('git', ['status', '--porcelain'], { cwd: worktree, encoding: 'utf8' })).toBe('');
});

test('a setup command is one line of text with nothing hidden in it', async () => {
  expect(parseSetup('  npm ci  ')).toBe('npm ci');
  expect((await refusal(() => parseSetup('npm ci\nrm -rf ~'))).code).toBe('invalid_input');
  expect((await refusal(() => parseSetup('   '))).code).toBe('invalid_input');
  expect((await refusal(() => parseSetup('npm ci \u202e'))).code).toBe('invalid_input');
});

test.skipIf(process.platform === 'win32')(
  'at the time limit the whole process group is killed: a background child the setup started never writes its file',
  async () => {
    const input = setupInput();
    const late = join(input.worktree, '..', `${input.worktree.split('/').pop()}-late`);
    dirs.push(late);
    // The child outlives sh by design; killing only sh (what spawnSync did) left it to write the file a second later.
    const command = `(sleep 1; echo late > '${late}') & sleep 30`;
    expect((await refusal(() => runWorktreeSetup({ ...input, command, limitMs: 300 }))).data).toMatchObject({ timedOut: true });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(existsSync(late)).toBe(false);
  },
);

test('the setup runs as a child process: the event loop keeps turning while it runs', async () => {
  const input = setupInput();
  const order: string[] = [];
  const done = join(input.worktree, '..', `${input.worktree.split('/').pop()}-done`);
  dirs.push(done);
  const setup = runWorktreeSetup({ ...input, command: `sleep 1; echo > '${done}'` }).then(() => order.push('setup finished'));
  // A timer due long before the setup ends fires while it runs (a blocking spawnSync would hold it until the end).
  await new Promise((resolve) => setTimeout(resolve, 50));
  order.push(existsSync(done) ? 'timer after the setup' : 'timer while the setup runs');
  await setup;
  expect(order).toEqual(['timer while the setup runs', 'setup finished']);
});

test('cancelling kills the setup and refuses the turn; a failed setup backs off for unattended runners, a changed command does not', async () => {
  const input = setupInput();
  const abort = new AbortController();
  const running = refusal(() => runWorktreeSetup({ ...input, command: 'sleep 30', signal: abort.signal }));
  setTimeout(() => abort.abort(), 100);
  expect((await running).code).toBe('setup_cancelled');
  const nowMs = Date.parse('2026-01-01T00:00:00Z');
  const failed = await refusal(() => runWorktreeSetup({ ...input, command: 'echo broken; exit 1', nowMs }));
  expect(failed.data).toMatchObject({ failures: 1, retryAt: '2026-01-01T00:01:00.000Z' });
  // Within the back-off an unattended runner does not run it again (the log still holds the first run's output).
  writeFileSync(input.logFile, 'kept');
  const waiting = await refusal(() =>
    runWorktreeSetup({ ...input, command: 'echo broken; exit 1', nowMs: nowMs + 30_000, respectBackoff: true }),
  );
  expect(waiting).toMatchObject({ code: 'setup_failed', data: { backingOff: true, retryAt: '2026-01-01T00:01:00.000Z' } });
  expect(readFileSync(input.logFile, 'utf8')).toBe('kept');
  // After it, it runs again, and a second failure in a row waits twice as long.
  const again = await refusal(() =>
    runWorktreeSetup({ ...input, command: 'echo broken; exit 1', nowMs: nowMs + 61_000, respectBackoff: true }),
  );
  expect(again.data).toMatchObject({ failures: 2, retryAt: '2026-01-01T00:03:01.000Z' });
  // A person's changed command runs at once.
  expect(await runWorktreeSetup({ ...input, command: 'true', nowMs: nowMs + 62_000, respectBackoff: true })).toEqual({ ran: true });
});

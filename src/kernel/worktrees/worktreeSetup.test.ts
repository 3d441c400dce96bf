import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

function refusal(fn: () => unknown): { code: string; message: string; data: unknown } {
  try {
    fn();
  } catch (e) {
    if (e instanceof LoopxError) return { code: e.code, message: e.message, data: e.data };
    throw e;
  }
  throw new Error('not refused');
}

test('a setup that outlives its time limit is stopped and refuses the turn in words; the next try runs it again', () => {
  const worktree = repo();
  const logFile = join(worktree, '..', `${worktree.split('/').pop()}-setup.log`);
  dirs.push(logFile);
  const input = { worktree, todoId: 'T1', goalId: 'G1', logFile };
  const slow = refusal(() => runWorktreeSetup({ ...input, command: 'echo starting; sleep 30; echo never', limitMs: 300 }));
  expect(slow.code).toBe('setup_failed');
  expect(slow.message).toMatch(/did not finish within 1 s and was stopped in the worktree of T1; the turn did not start/);
  expect(slow.data).toMatchObject({ timedOut: true });
  // Its output is kept, and nothing marks the worktree as set up: the next turn tries again.
  expect(readFileSync(logFile, 'utf8')).toContain('starting');
  expect(runWorktreeSetup({ ...input, command: 'true' })).toEqual({ ran: true });
  expect(runWorktreeSetup({ ...input, command: 'true' })).toEqual({ ran: false });
  // A changed command runs again; the marker lives in the git folder, never in the working tree.
  expect(runWorktreeSetup({ ...input, command: 'true && true' })).toEqual({ ran: true });
  expect(existsSync(join(worktree, '.git', 'loopx-setup-done'))).toBe(true);
  expect(execFileSync('git', ['status', '--porcelain'], { cwd: worktree, encoding: 'utf8' })).toBe('');
});

test('a setup command is one line of text with nothing hidden in it', () => {
  expect(parseSetup('  npm ci  ')).toBe('npm ci');
  expect(refusal(() => parseSetup('npm ci\nrm -rf ~')).code).toBe('invalid_input');
  expect(refusal(() => parseSetup('   ')).code).toBe('invalid_input');
  expect(refusal(() => parseSetup('npm ci \u202e')).code).toBe('invalid_input');
});

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { dumpStore, startGoal } from './harness';
import { cliRepo } from './cliRepo';

/** What stands where a todo's worktree folder goes, and a folder deleted by hand: real git, real `loopx turn start`. */
const BOT = { LOOPX_AGENT: 'bot' };

const parents: string[] = [];
afterAll(() => {
  for (const parent of parents) rmSync(parent, { recursive: true, force: true });
});

function setUp() {
  const { parent, root, git, cli } = cliRepo('loopx-wtf-');
  parents.push(parent);
  cli(['goal', 'create', '--title', 'Parallel', '--worktree', 'main']);
  startGoal(root);
  cli(['todo', 'add', '--goal', 'G1', '--title', 'Parse quoted fields']);
  const start = () => cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--todo', 'T1', '--json'], BOT);
  const folders = join(parent, 'app.loopx-worktrees');
  return { root, git, cli, start, folders, folder: join(folders, 'T1-parse-quoted-fields') };
}

describe('what is in the way of a worktree folder is said in words, and nothing changes', () => {
  test('a file where the worktree folder goes refuses the turn with git_failed; the file is untouched', () => {
    const s = setUp();
    mkdirSync(s.folders);
    writeFileSync(s.folder, 'keep me\n');
    const before = dumpStore(s.root);
    const started = s.start();
    expect([started.code, started.json.error?.code], started.stdout + started.stderr).toEqual([3, 'git_failed']);
    expect(started.json.error?.message).toBe(`cannot make the worktree of T1: ${s.folder} is a file, where its folder goes`);
    expect(dumpStore(s.root)).toBe(before);
    expect(readFileSync(s.folder, 'utf8')).toBe('keep me\n');
    expect(s.git(['branch', '--list', 'loopx/*'])).toBe('');
  });

  test('a file where the folder of all worktrees goes refuses the turn with git_failed; the file is untouched', () => {
    const s = setUp();
    writeFileSync(s.folders, 'keep me too\n');
    const before = dumpStore(s.root);
    const started = s.start();
    expect([started.code, started.json.error?.code], started.stdout + started.stderr).toEqual([3, 'git_failed']);
    expect(started.json.error?.message).toBe(`cannot make the worktree of T1: ${s.folders} is a file, where a folder must be`);
    expect(dumpStore(s.root)).toBe(before);
    expect(readFileSync(s.folders, 'utf8')).toBe('keep me too\n');
    expect(s.git(['branch', '--list', 'loopx/*'])).toBe('');
  });
});

describe('a worktree folder deleted by hand', () => {
  test("is made again on the todo's branch by its next turn, with the branch's commits", () => {
    const s = setUp();
    const first = s.start();
    expect(first.json.ok, first.stdout).toBe(true);
    const { id, cwd } = first.json.data as { id: string; cwd: string };
    expect(cwd).toBe(s.folder);
    writeFileSync(join(cwd, 'work.txt'), 'half done\n');
    s.git(['add', 'work.txt'], cwd);
    s.git(['commit', '-q', '-m', 'T1 half done'], cwd);
    s.cli(['evidence', 'add', '--todo', 'T1', '--kind', 'note', '--summary', 'half done'], BOT); // something new: the goal should run again
    s.cli(['turn', 'finish', id, '--exit-code', '0'], BOT);
    rmSync(s.folder, { recursive: true, force: true }); // by hand: git still lists it until pruned
    expect(s.git(['worktree', 'list', '--porcelain'])).toContain(s.folder);
    const next = s.start();
    expect(next.json.ok, next.stdout + next.stderr).toBe(true);
    expect(next.json.data).toMatchObject({ cwd: s.folder, worktree: { branch: 'loopx/T1-parse-quoted-fields', path: s.folder } });
    expect(readFileSync(join(s.folder, 'work.txt'), 'utf8')).toBe('half done\n');
    expect(s.git(['rev-parse', '--abbrev-ref', 'HEAD'], s.folder)).toBe('loopx/T1-parse-quoted-fields');
    expect(existsSync(join(s.folder, '.loopx'))).toBe(false);
    expect(s.cli(['log', 'verify', '--json']).code).toBe(0);
  });
});

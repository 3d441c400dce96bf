import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { listWorktreeRows } from '../../kernel/worktrees/worktreeRows';
import { mergeWorktree } from '../../kernel/worktrees/landing';
import { worktreeRepo } from '../../../test/fixtures/worktreeRepo';
import { boardFacts } from '../../kernel/readModels/cards';
import { addTodo } from '../../kernel/todos/todos';
import { buildSnapshot } from '../board/boardData';
import { BranchChanges } from './branchChanges';
import { branchFiles } from './branchFiles';
import { worktreeBaseProblem, currentBranch } from '../commands/newGoalWorktree';

/** The extension's branch pieces against real git in a temporary repository, through the kernel's own readings. */
const repo = worktreeRepo();
afterAll(() => repo.cleanUp());
const rows = () => repo.kernel.read((db) => listWorktreeRows(db));
/** A reading once git has answered: the first gives what is known and asks git in the background. */
async function settledRead(branches: BranchChanges, nowMs?: number) {
  branches.read(repo.root, rows(), nowMs);
  await branches.settled();
  return branches.read(repo.root, rows(), nowMs);
}

describe("a todo's branch as the board and the tree read it", () => {
  const shipped = repo.ship('Parse quoted fields', { 'parse.ts': 'export const parse = 1;\n', 'shared.txt': 'one\nTWO\nthree\n' });

  test('the card gets the branch, its commits, the diff stat and what is not committed: the data todo show prints', async () => {
    writeFileSync(join(shipped.path, 'notes.md'), 'left over\n');
    const changes = await settledRead(new BranchChanges());
    expect(changes.get(shipped.todoId)).toEqual({
      branch: 'loopx/T1-parse-quoted-fields',
      base: 'main',
      state: 'open',
      exists: true,
      commits: 1,
      subjects: ['Parse quoted fields'],
      files: 2,
      insertions: 2,
      deletions: 1,
      uncommitted: ['notes.md'],
      uncommittedCount: 1,
      prUrl: null,
    });
  });

  test("the board's cards carry it (read apart from the store's transaction); a todo without a branch has none", async () => {
    const plain = addTodo(repo.kernel, { goalId: repo.goalId, title: 'Not started' }).id;
    const changes = await settledRead(new BranchChanges());
    const { cards, attention } = repo.kernel.read((db, now) => buildSnapshot(boardFacts(db, now), 'ada', changes));
    expect(cards.find((c) => c.id === shipped.todoId)?.change?.branch).toBe('loopx/T1-parse-quoted-fields');
    expect(cards.find((c) => c.id === plain)?.change).toBeNull();
    // The shipped branch nobody landed is in Needs you, with what it holds.
    expect(attention.filter((a) => a.kind === 'land')).toEqual([
      {
        kind: 'land',
        todoId: shipped.todoId,
        title: 'Parse quoted fields',
        branch: 'loopx/T1-parse-quoted-fields',
        base: 'main',
        size: '1 commit · 2 files +2 −1',
      },
    ]);
  });

  test('git is asked again when the store row changes (a landing), not on every reading in between', async () => {
    const errors: string[] = [];
    let told = 0;
    const branches = new BranchChanges(
      (todo) => errors.push(todo),
      () => told++,
    );
    // The first reading does not wait for git: nothing is known yet, and the views are told when git has answered.
    expect(branches.read(repo.root, rows(), 1_000).size).toBe(0);
    await branches.settled();
    expect(told).toBe(1);
    const first = branches.read(repo.root, rows(), 1_000);
    repo.git(['commit', '-q', '--allow-empty', '-m', 'more'], shipped.path);
    // Within a few seconds the reading stands (turns write often; git is not asked each time)…
    expect((await settledRead(branches, 2_000)).get(shipped.todoId)?.commits).toBe(first.get(shipped.todoId)?.commits);
    expect(told).toBe(1);
    // …after that a live branch is read again.
    expect((await settledRead(branches, 10_000)).get(shipped.todoId)?.commits).toBe(2);
    expect(told).toBe(2);
    // Read again with nothing new: the views are not told again (no loop of readings).
    await settledRead(branches, 20_000);
    expect(told).toBe(2);
    repo.git(['add', '.'], shipped.path);
    repo.git(['commit', '-q', '-m', 'notes'], shipped.path);
    await mergeWorktree(repo.kernel, shipped.todoId, 'ff');
    const merged = (await settledRead(branches, 20_001)).get(shipped.todoId);
    expect(merged?.state).toBe('merged');
    expect(errors).toEqual([]);
  });

  test('Show Changes lists the files the branch changed since it started, with the two commits to compare', async () => {
    const next = repo.ship('Write the docs', { 'docs.md': '# Docs\n' });
    repo.git(['rm', '-q', 'shared.txt'], next.path);
    repo.git(['commit', '-q', '-m', 'drop shared'], next.path);
    const row = rows().find((r) => r.todoId === next.todoId);
    if (!row) throw new Error('no worktree row');
    const { files, from, to } = await branchFiles(repo.root, row);
    expect(files).toEqual([
      { path: 'docs.md', status: 'added' },
      { path: 'shared.txt', status: 'deleted' },
    ]);
    expect(from).toBe(row.baseCommit);
    expect(to).toBe(repo.git(['rev-parse', next.branch]));
  });
});

describe('a conflict from VS Code (whose working directory is not the repository)', () => {
  test('is undone: the main folder is left clean, main is where it was, the branch is kept', async () => {
    const a = repo.ship('Say three loudly', { 'shared.txt': 'one\ntwo\nTHREE\n' });
    const b = repo.ship('Say three in French', { 'shared.txt': 'one\ntwo\ntrois\n' });
    expect(process.cwd()).not.toBe(repo.root);
    await mergeWorktree(repo.kernel, a.todoId, 'merge');
    const main = repo.git(['rev-parse', 'main']);
    await expect(mergeWorktree(repo.kernel, b.todoId, 'merge')).rejects.toThrow(/conflicts with main in shared\.txt/);
    expect(repo.git(['status', '--porcelain', '--untracked-files=no'])).toBe('');
    expect(repo.git(['rev-parse', 'main'])).toBe(main);
    expect(repo.git(['rev-parse', '--verify', '--quiet', b.branch])).not.toBe('');
  });
});

describe("New Goal's worktree step", () => {
  test('offers the branch checked out now, and says in words what is wrong with a base', () => {
    expect(currentBranch(repo.root)).toBe('main');
    expect(worktreeBaseProblem(repo.root, '')).toBeUndefined();
    expect(worktreeBaseProblem(repo.root, 'main')).toBeUndefined();
    expect(worktreeBaseProblem(repo.root, 'no-such-branch')).toBe(
      'No branch or commit named “no-such-branch” in this repository: name an existing branch, e.g. main.',
    );
    expect(worktreeBaseProblem(repo.parent, 'main')).toBe(
      'This folder is not a git repository, so turns cannot get worktrees here. Leave this empty.',
    );
    expect(currentBranch(repo.parent)).toBe('');
  });
});

import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { worktreeRepo } from '../fixtures/worktreeRepo';
import { dumpStore } from './harness';
import { discardWorktree, mergeWorktree, openPullRequest } from '../../src/kernel/worktrees/landing';
import { findWorktree } from '../../src/kernel/worktrees/worktreeRows';
import { addTodo } from '../../src/kernel/todos/todos';
import { processAlive } from '../../src/runtime/launchers';
import { startTurn } from '../../src/kernel/turns/turns';
import { finishTurn } from '../../src/kernel/turns/turnFinish';

/**
 * Landing a branch from VS Code runs git and gh as non-blocking children: the extension host's event loop turns and
 * other writes go through while a slow push or gh works, the kernel's write (with the VS Code channel) comes after,
 * and a cancel is honoured only where nothing is left half-landed.
 */
const repos: ReturnType<typeof worktreeRepo>[] = [];
afterAll(() => {
  for (const r of repos) {
    r.kernel.close();
    r.cleanUp();
  }
});

function setUp() {
  const repo = worktreeRepo();
  repos.push(repo);
  const remote = join(repo.parent, 'remote.git');
  repo.git(['init', '-q', '--bare', remote], repo.parent);
  repo.git(['remote', 'add', 'origin', remote]);
  return { ...repo, remote };
}

/** A fake gh on PATH: `--version` answers at once; `pr create` notes it was asked, takes `seconds`, prints the PR's address. */
function slowGh(parent: string, seconds: number): () => void {
  const bin = join(parent, 'gh-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, 'gh'),
    [
      '#!/bin/sh',
      'if [ "$1" = --version ]; then echo "gh version 2.0.0"; exit 0; fi',
      `echo "$@" > '${bin}/asked'`,
      `sleep ${seconds}`,
      'echo "https://github.example/acme/app/pull/9"',
      '',
    ].join('\n'),
  );
  chmodSync(join(bin, 'gh'), 0o755);
  const saved = process.env.PATH;
  process.env.PATH = `${bin}:${saved ?? ''}`;
  return () => {
    process.env.PATH = saved;
  };
}

describe('a landing does not block the process that runs it (VS Code runs the kernel in its extension host)', () => {
  test('while gh opens the pull request, a timer fires and another kernel write completes; then the PR is recorded', async () => {
    const repo = setUp();
    const shipped = repo.ship('Parse quoted fields', { 'parse.ts': 'export const parse = 1;\n' });
    const restore = slowGh(repo.parent, 2);
    try {
      const order: string[] = [];
      const landing = openPullRequest(repo.kernel, shipped.todoId).then((row) => (order.push('landed'), row));
      // On a blocking landing (spawnSync) this timer could only fire after the landing had returned.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const added = addTodo(repo.kernel, { goalId: repo.goalId, title: 'Meanwhile' });
      order.push(`timer and write ${added.id}`);
      const row = await landing;
      expect(order).toEqual([`timer and write ${added.id}`, 'landed']);
      expect(row).toMatchObject({ status: 'pr', prUrl: 'https://github.example/acme/app/pull/9', landedChannel: 'vscode' });
    } finally {
      restore();
    }
  });

  test('a merge lets the event loop turn while git works, and records the merge with the VS Code channel', async () => {
    const repo = setUp();
    const shipped = repo.ship('Write the docs', { 'docs.md': '# Docs\n' });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    try {
      const row = await mergeWorktree(repo.kernel, shipped.todoId, 'ff');
      expect(row).toMatchObject({ status: 'merged', landedChannel: 'vscode' });
      // A dozen git calls, each a child the loop waits on without blocking: the interval ran in between.
      expect(ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(ticker);
    }
    expect(repo.git(['rev-parse', 'main'])).toBe(repo.git(['rev-parse', shipped.branch]));
  });
});

describe('cancelling a landing never leaves it half done', () => {
  test('a push cancelled while it runs is stopped with its whole process group (its child too); nothing is recorded, no PR asked for', async () => {
    const repo = setUp();
    const shipped = repo.ship('Slow push', { 'slow.txt': 'slow\n' });
    const pidFile = join(repo.parent, 'hook-pid');
    // A push that hangs like one over a slow network, and says who it is: a git first on PATH whose push sleeps in a
    // child of its own (loopx's git runs no hooks, so a hook cannot play the slow push).
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const slowGit = join(repo.parent, 'gh-bin', 'git');
    mkdirSync(dirname(slowGit), { recursive: true });
    writeFileSync(
      slowGit,
      `#!/bin/sh\ncase " $* " in *" push "*) sh -c 'echo $$ > "$1"; sleep 30' sh '${pidFile}'; exit 1;; esac\nexec '${real}' "$@"\n`,
    );
    chmodSync(slowGit, 0o755);
    const restore = slowGh(repo.parent, 0);
    const before = dumpStore(repo.root);
    try {
      const abort = new AbortController();
      const steps: string[] = [];
      const landing = openPullRequest(repo.kernel, shipped.todoId, { signal: abort.signal, onStep: (s) => steps.push(s) });
      while (!existsSync(pidFile)) await new Promise((resolve) => setTimeout(resolve, 20));
      const hookPid = Number(execFileSync('cat', [pidFile], { encoding: 'utf8' }).trim());
      expect(processAlive(hookPid)).toBe(true);
      abort.abort();
      await expect(landing).rejects.toMatchObject({ code: 'landing_cancelled' });
      expect(steps).toEqual(['checking', 'pushing']);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(processAlive(hookPid)).toBe(false);
    } finally {
      restore();
    }
    expect(dumpStore(repo.root)).toBe(before);
    expect(repo.kernel.read((db) => findWorktree(db, shipped.todoId))?.status).toBe('open');
    expect(existsSync(join(repo.parent, 'gh-bin', 'asked'))).toBe(false);
  });

  test('a merge or a discard cancelled before git changes anything changes nothing: base, branch, folder and store as they were', async () => {
    const repo = setUp();
    const shipped = repo.ship('Cancelled early', { 'early.txt': 'early\n' });
    const main = repo.git(['rev-parse', 'main']);
    const before = dumpStore(repo.root);
    const cancelled = () => {
      const abort = new AbortController();
      abort.abort();
      return { signal: abort.signal };
    };
    await expect(mergeWorktree(repo.kernel, shipped.todoId, 'ff', cancelled())).rejects.toMatchObject({ code: 'landing_cancelled' });
    await expect(discardWorktree(repo.kernel, shipped.todoId, true, cancelled())).rejects.toMatchObject({ code: 'landing_cancelled' });
    expect(repo.git(['rev-parse', 'main'])).toBe(main);
    expect(repo.git(['rev-parse', '--verify', '--quiet', shipped.branch])).not.toBe('');
    expect(existsSync(shipped.path)).toBe(true);
    expect(dumpStore(repo.root)).toBe(before);
  });
});

describe('a merge stopped after git merged (kill -9 between git and the write) is recorded by the next merge', () => {
  // What the killed `loopx worktree merge` left: git merged the branch into main, the store still says "open".
  test('by fast-forward: the retry records it merged at the branch head, as the person who retried; an agent may not retry it', async () => {
    const repo = setUp();
    const shipped = repo.ship('Killed after git', { 'killed.txt': 'merged\n' });
    const head = repo.git(['rev-parse', shipped.branch]);
    repo.git(['merge', '--ff-only', '-q', shipped.branch]);
    const codex = repo.kernel.as({ name: 'codex', kind: 'agent' });
    const before = dumpStore(repo.root);
    await expect(mergeWorktree(codex, shipped.todoId, 'ff')).rejects.toMatchObject({ code: 'not_allowed' });
    expect(dumpStore(repo.root)).toBe(before);
    const row = await mergeWorktree(repo.kernel, shipped.todoId, 'ff');
    expect(row).toMatchObject({ status: 'merged', landedCommit: head, landedBy: 'ada', landedChannel: 'vscode' });
    expect(repo.git(['rev-parse', 'main'])).toBe(head);
    await expect(mergeWorktree(repo.kernel, shipped.todoId, 'ff')).rejects.toMatchObject({ code: 'illegal_transition' });
  });

  test('by a merge commit, with main moved on since: the retry records that merge commit', async () => {
    const repo = setUp();
    const shipped = repo.ship('Killed after a merge commit', { 'merge.txt': 'merged\n' });
    const head = repo.git(['rev-parse', shipped.branch]);
    repo.git(['merge', '--no-ff', '--no-edit', '-q', shipped.branch]);
    const mergeCommit = repo.git(['rev-parse', 'main']);
    writeFileSync(join(repo.root, 'later.txt'), 'later\n');
    repo.git(['add', 'later.txt']);
    repo.git(['commit', '-q', '-m', 'later on main']);
    const row = await mergeWorktree(repo.kernel, shipped.todoId, 'ff');
    expect(row).toMatchObject({ status: 'merged', landedCommit: mergeCommit });
    expect(repo.git(['rev-parse', `${mergeCommit}^2`])).toBe(head);
  });

  test('a branch with no commits of its own is still refused: there is nothing to merge', async () => {
    const repo = setUp();
    const codex = repo.kernel.as({ name: 'codex', kind: 'agent' });
    const todoId = addTodo(repo.kernel, { goalId: repo.goalId, title: 'Nothing committed' }).id;
    finishTurn(codex, startTurn(codex, { goalId: repo.goalId, todoId, host: 'codex', agent: 'codex' }).turn.id, 0);
    const before = dumpStore(repo.root);
    await expect(mergeWorktree(repo.kernel, todoId, 'ff')).rejects.toMatchObject({
      code: 'illegal_transition',
      message: expect.stringMatching(/has nothing that main does not have already/),
    });
    expect(dumpStore(repo.root)).toBe(before);
  });
});

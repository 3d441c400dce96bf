import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startGoal } from './harness';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty } from './pty';
import { GIT_IDENTITY as GIT_ID } from '../fixtures/worktreeRepo';
import { cliRepo } from './cliRepo';

/**
 * Agents write the workspace, and a git hook is code that git runs from there: a `core.hooksPath` inside it (husky's
 * `.husky/_`, a `.githooks` folder) or a hook in `.git/hooks` that runs a script or config of the workspace
 * (lefthook, pre-commit), and a file-system monitor named by a workspace file the repository's config includes. The
 * git loopx runs itself (a worktree made at a turn's start, the change's summary, a
 * person's merge) runs none of them: each planted hook here would mark a file outside the workspace, as an agent's
 * code would run as the person there, outside its sandbox. The test's own git (the agent's commits) runs without
 * hooks too, so only loopx's could mark it; the planted hooks are first shown to run under a plain `git commit`.
 */

/** Every hook git runs around the commands loopx uses (worktree add, status, diff, merge, commit, push, gc). */
const HOOKS = [
  'post-checkout',
  'post-commit',
  'pre-commit',
  'commit-msg',
  'pre-merge-commit',
  'post-merge',
  'reference-transaction',
  'post-index-change',
  'pre-push',
  'pre-auto-gc',
];

const parents: string[] = [];
afterAll(() => {
  for (const parent of parents) rmSync(parent, { recursive: true, force: true });
});

type Where = 'a core.hooksPath in the workspace (husky, .githooks)' | "a hook in .git/hooks that runs the workspace's script (lefthook)";

function setUp(where: Where) {
  const { parent, root, git, cli } = cliRepo('loopx-hooks-', {
    gitFlags: ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'],
  });
  parents.push(parent);
  const marker = join(parent, 'hooks-ran.log');
  // What an agent writes in the workspace: the hooks themselves, or the script the repository's hooks run.
  const mark = (name: string) => `#!/bin/sh\necho "${name} in $(pwd)" >> '${marker}'\n`;
  if (where.startsWith('a core.hooksPath')) {
    git(['config', 'core.hooksPath', '.githooks']);
    mkdirSync(join(root, '.githooks'));
    for (const hook of HOOKS) writeFileSync(join(root, '.githooks', hook), mark(hook), { mode: 0o755 });
  } else {
    writeFileSync(join(root, 'run-hook.sh'), mark('$1'));
    for (const hook of HOOKS)
      writeFileSync(join(root, '.git', 'hooks', hook), `#!/bin/sh\nexec sh "$(git rev-parse --show-toplevel)/run-hook.sh" ${hook}\n`, {
        mode: 0o755,
      });
  }
  // A repository config that includes a file of the workspace (a team's shared settings), which names a file-system
  // monitor: a program git runs before a status.
  git(['config', 'include.path', '../project.gitconfig']);
  writeFileSync(join(root, 'project.gitconfig'), '[core]\n\tfsmonitor = ./fsmonitor.sh\n');
  writeFileSync(join(root, 'fsmonitor.sh'), mark('fsmonitor'), { mode: 0o755 });
  const created = cli(['goal', 'create', '--title', 'Hooks', '--worktree', 'main', '--json']);
  expect(created.code, created.stdout).toBe(0);
  startGoal(root);
  cli(['todo', 'add', '--goal', 'G1', '--title', 'Change the shared file']);
  return { root, marker, git, cli };
}

describe.each<Where>([
  'a core.hooksPath in the workspace (husky, .githooks)',
  "a hook in .git/hooks that runs the workspace's script (lefthook)",
])('with %s', (where) => {
  test('the planted hooks and the monitor run under a plain git commit (so the test below could fail)', () => {
    const s = setUp(where);
    writeFileSync(join(s.root, 'shared.txt'), 'two\n');
    s.git(['commit', '-q', '-am', 'by hand'], s.root, []);
    expect(readFileSync(s.marker, 'utf8')).toMatch(/^pre-commit in /m);
    expect(readFileSync(s.marker, 'utf8')).toMatch(/^fsmonitor in /m);
  });

  test.skipIf(!PTY_AVAILABLE)(
    `a worktree turn, its change's summary and a person's merge run none of them, nor the monitor${PTY_AVAILABLE ? '' : ` (${PTY_SKIP_REASON})`}`,
    () => {
      const s = setUp(where);
      const bot = { LOOPX_AGENT: 'bot' };
      // turn start makes the todo's worktree (git worktree add: post-checkout, reference-transaction, the index).
      const started = s.cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--todo', 'T1', '--json'], bot);
      expect(started.json.ok, started.stdout).toBe(true);
      const turn = started.json.data as { id: string; cwd: string };
      writeFileSync(join(turn.cwd, 'shared.txt'), 'one\nfrom T1\n');
      s.git(['commit', '-q', '-am', 'T1 changes shared.txt'], turn.cwd);
      writeFileSync(join(turn.cwd, 'notes.txt'), 'left uncommitted\n');
      // The change's summary (git status, diff, log) in the worktree.
      const shown = s.cli(['todo', 'show', 'T1', '--json'], bot);
      expect(shown.json.data).toMatchObject({ change: { branch: 'loopx/T1-change-the-shared-file' } });
      rmSync(join(turn.cwd, 'notes.txt'));
      s.cli(['evidence', 'add', '--todo', 'T1', '--kind', 'note', '--summary', 'changed it'], bot);
      s.cli(['todo', 'ship', 'T1'], bot);
      s.cli(['turn', 'finish', turn.id, '--exit-code', '0'], bot);
      // A person's merge, with a merge commit (pre-merge-commit, post-merge, commit-msg), in a scratch worktree.
      writeFileSync(join(s.root, 'other.txt'), 'main moved on\n');
      s.git(['add', 'other.txt']);
      s.git(['commit', '-q', '-m', 'main moves on']);
      const merged = loopxTty(['worktree', 'merge', 'T1', '--merge-commit', '--json'], 'T1', { cwd: s.root, env: GIT_ID });
      expect(merged.code, merged.stdout + merged.stderr).toBe(0);
      expect(s.git(['log', '-1', '--format=%s', 'main'])).toMatch(/^Merge loopx\/T1-change-the-shared-file/);
      expect(existsSync(s.marker) ? readFileSync(s.marker, 'utf8') : '').toBe('');
    },
  );
});

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { BoardPanel } from '../../src/extension/board/boardPanel';
import { Kernel } from '../../src/kernel/kernel';
import { createGoal } from '../../src/kernel/goals/goals';
import { findWorktree } from '../../src/kernel/worktrees/worktreeRows';
import { GIT_IDENTITY, shipOnBranch } from '../fixtures/worktreeRepo';
import { app, until, vscodeHuman, withAnswers, workspaceRoot } from './support';

/**
 * Landing a todo's branch from VS Code with real git: the workspace becomes a repository for this suite, a goal gets
 * worktrees, two agents' branches change the same line. A conflict is said with the file named and changes nothing;
 * Discard refuses while work would be lost and offers the force only after a warning that names it.
 */
suite('branches of worktree goals', () => {
  let root = '';
  let hadRepo = false;
  const git = (args: string[], cwd = root) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...GIT_IDENTITY } }).trim();
  let goalId = '';
  let first: ReturnType<typeof shipOnBranch>;
  let second: ReturnType<typeof shipOnBranch>;
  const gitQuiet = (args: string[]) => {
    try {
      git(args);
    } catch {
      // nothing to undo
    }
  };
  const row = async (todoId: string) => (await app()).session.requireKernel().read((db) => findWorktree(db, todoId));

  suiteSetup(() => {
    root = workspaceRoot();
    hadRepo = existsSync(join(root, '.git')); // an earlier suite may have made one (on another branch)
    git(['init', '-q', '-b', 'main']);
    writeFileSync(join(root, '.gitignore'), '.loopx/\n');
    writeFileSync(join(root, 'shared.txt'), 'one\ntwo\nthree\n');
    git(['add', '-A']);
    git(['commit', '-q', '-m', 'start']);
    git(['checkout', '-q', '-B', 'main']);
    const kernel = Kernel.open(root, { actor: vscodeHuman });
    try {
      goalId = createGoal(kernel, { title: 'Two agents, one line', worktree: 'main', maxConcurrent: 2 }).id;
      first = shipOnBranch(kernel, goalId, 'Say two loudly', { 'shared.txt': 'one\nTWO\nthree\n' });
      second = shipOnBranch(kernel, goalId, 'Say two in French', { 'shared.txt': 'one\ndeux\nthree\n' });
    } finally {
      kernel.close();
    }
  });

  suiteTeardown(() => {
    rmSync(`${root}.loopx-worktrees`, { recursive: true, force: true });
    if (!hadRepo) rmSync(join(root, '.git'), { recursive: true, force: true });
  });

  test('a merge that conflicts says so, naming the file, and changes nothing; the branch is kept', async () => {
    await withAnswers({ warnings: ['Merge'] }, async () => vscode.commands.executeCommand('loopx.mergeBranch', first.todoId));
    assert.equal((await row(first.todoId))?.status, 'merged');
    assert.equal((await row(first.todoId))?.landedChannel, 'vscode');
    const main = git(['rev-parse', 'main']);
    // main moved on: Merge cannot move forward, so VS Code asks about a merge commit, which then conflicts.
    const { prompts } = await withAnswers({ warnings: ['Merge', 'Merge with a Merge Commit'] }, async () =>
      vscode.commands.executeCommand('loopx.mergeBranch', second.todoId),
    );
    assert.ok(
      prompts.some((p) => /^warning \(modal\): main has moved on since loopx\/T\d+-say-two-in-french started/.test(p)),
      prompts.join('\n'),
    );
    assert.ok(
      prompts.some((p) =>
        /^warning: LoopX: loopx\/T\d+-say-two-in-french conflicts with main in shared\.txt: the merge was undone, nothing was changed/.test(
          p,
        ),
      ),
      prompts.join('\n'),
    );
    assert.equal(git(['rev-parse', 'main']), main, 'main is as it was');
    assert.equal(git(['status', '--porcelain', '--untracked-files=no']), '', 'the main folder is clean');
    assert.equal((await row(second.todoId))?.status, 'open');
  });

  test('the editor stays responsive while a pull request is opened: another command completes while gh still runs', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'loopx-pr-'));
    const savedPath = process.env.PATH;
    const w = vscode.window as unknown as { withProgress: typeof vscode.window.withProgress };
    const savedProgress = w.withProgress;
    try {
      git(['init', '-q', '--bare', join(scratch, 'remote.git')], scratch);
      git(['remote', 'add', 'origin', join(scratch, 'remote.git')]);
      // A fake gh: `pr create` marks its start, takes 8 s (a slow network), marks its end, then prints the address.
      const bin = join(scratch, 'bin');
      mkdirSync(bin);
      const [started, ended] = [join(scratch, 'gh-started'), join(scratch, 'gh-ended')];
      const script = ['#!/bin/sh', 'if [ "$1" = --version ]; then echo "gh version 2.0.0"; exit 0; fi', `: > '${started}'`, 'sleep 8'];
      writeFileSync(join(bin, 'gh'), [...script, `: > '${ended}'`, 'echo "https://github.example/acme/app/pull/3"', ''].join('\n'));
      chmodSync(join(bin, 'gh'), 0o755);
      process.env.PATH = `${bin}:${savedPath ?? ''}`;
      const kernel = Kernel.open(root, { actor: vscodeHuman });
      let third: ReturnType<typeof shipOnBranch>;
      try {
        third = shipOnBranch(kernel, goalId, 'Say one loudly', { 'one.txt': 'ONE\n' });
      } finally {
        kernel.close();
      }
      // The progress notification, as the person sees it: its title and what it says along the way.
      const shown: string[] = [];
      w.withProgress = (options, task) =>
        savedProgress(options, (progress, token) => {
          shown.push(`${options.title ?? ''}${options.cancellable ? ' [Cancel]' : ''}`);
          return task({ report: (v) => (shown.push(v.message ?? ''), progress.report(v)) }, token);
        });
      const landing = withAnswers({ warnings: ['Open Pull Request'] }, async () =>
        vscode.commands.executeCommand('loopx.openPullRequest', third.todoId),
      );
      while (!existsSync(started)) await new Promise((resolve) => setTimeout(resolve, 20));
      // A blocking landing (spawnSync) would let this loop see gh's start only after gh had ended.
      assert.equal(existsSync(ended), false, 'gh still runs when the extension host next turns');
      await vscode.commands.executeCommand('loopx.refresh');
      assert.equal(existsSync(ended), false, 'another command completed while gh still runs');
      await landing;
      const landed = await row(third.todoId);
      assert.equal(landed?.status, 'pr');
      assert.equal(landed?.prUrl, 'https://github.example/acme/app/pull/3');
      assert.equal(landed?.landedChannel, 'vscode');
      assert.deepEqual(shown, [
        `LoopX: Opening a pull request for ${third.branch} [Cancel]`,
        'Checking the branch…',
        'Pushing the branch to origin…',
        'Asking GitHub for the pull request…',
      ]);
    } finally {
      w.withProgress = savedProgress;
      process.env.PATH = savedPath;
      gitQuiet(['remote', 'remove', 'origin']);
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  test('with loopx.worktrees.cleanAfter on, the window removes stray worktree folders; a dirty one is said once and kept', async () => {
    const loopx = await app();
    const janitor = loopx.primary.worktreeJanitor;
    const folders = `${root}.loopx-worktrees`;
    const [clean, dirty] = [join(folders, 'stray-clean'), join(folders, 'stray-dirty')];
    // Folders the store never made (a crashed tool's, a person's experiment): stray whatever their age. (git names
    // them by their real path: the workspace may sit behind a symbolic link.)
    git(['worktree', 'add', '-q', '-b', 'loopx/stray-clean', clean, 'main']);
    git(['worktree', 'add', '-q', '-b', 'loopx/stray-dirty', dirty, 'main']);
    writeFileSync(join(dirty, 'wip.txt'), 'half a thought\n');
    const config = vscode.workspace.getConfiguration('loopx.worktrees');
    assert.equal(config.inspect('cleanAfter')?.defaultValue, 'off', 'off unless the person turns it on');
    const passes = janitor.passes.length;
    try {
      const { prompts } = await withAnswers({}, async () => {
        await config.update('cleanAfter', '7d', vscode.ConfigurationTarget.Global);
        await until(() => janitor.passes.length > passes, 'the clean-up to run once the setting is on', 30_000);
        // Later passes within the hour do nothing, and the kept folder is not said again.
        assert.equal(await janitor.tick(), null);
      });
      assert.equal(existsSync(clean), false, 'the clean stray folder was removed');
      assert.equal(readFileSync(join(dirty, 'wip.txt'), 'utf8'), 'half a thought\n', 'the dirty one is untouched');
      assert.notEqual(git(['rev-parse', '--verify', '--quiet', 'loopx/stray-clean']), '', 'its branch stays');
      const kept = prompts.filter((p) => p.startsWith('warning: LoopX left the worktree folder'));
      assert.deepEqual(kept, [
        `warning: LoopX left the worktree folder ${realpathSync(dirty)} in place: it has a file nobody committed. A folder with uncommitted work is never removed without asking.`,
      ]);
      assert.ok(
        prompts.some((p) =>
          /^info: LoopX removed a worktree folder idle for 7d or more \(loopx\/stray-clean\); its branch stays\.$/.test(p),
        ),
        prompts.join('\n'),
      );
    } finally {
      await config.update('cleanAfter', undefined, vscode.ConfigurationTarget.Global);
      gitQuiet(['worktree', 'remove', '--force', dirty]);
      gitQuiet(['branch', '-D', 'loopx/stray-clean', 'loopx/stray-dirty']);
    }
  });

  test('Discard from the board refuses while work would be lost; the force comes only after a warning naming it', async () => {
    writeFileSync(join(second.path, 'scratch.txt'), 'half a thought\n');
    const panel = await vscode.commands.executeCommand<BoardPanel>('loopx.openBoard');
    const ask = (n: number) => panel.receive({ type: 'todoAction', requestId: n, todoId: second.todoId, action: 'discardBranch' });
    // Discard, then the warning about scratch.txt is dismissed: nothing is deleted.
    const kept = await withAnswers({ warnings: ['Discard', undefined as unknown as string] }, () => ask(901));
    assert.ok(
      kept.prompts.some((p) => /not discarded: its worktree has changes nobody committed\. \| Not committed: scratch\.txt\./.test(p)),
      kept.prompts.join('\n'),
    );
    assert.deepEqual(kept.result, {
      type: 'result',
      requestId: 901,
      ok: false,
      error: { code: 'cancelled', message: 'cancelled', hint: null },
    });
    assert.equal((await row(second.todoId))?.status, 'open');
    assert.ok(existsSync(join(second.path, 'scratch.txt')));
    const gone = await withAnswers({ warnings: ['Discard', 'Discard and Delete Those Changes'] }, () => ask(902));
    assert.deepEqual(gone.result, { type: 'result', requestId: 902, ok: true });
    const discarded = await row(second.todoId);
    assert.equal(discarded?.status, 'discarded');
    assert.equal(discarded?.landedChannel, 'vscode');
    assert.equal(existsSync(second.path), false);
  });
});

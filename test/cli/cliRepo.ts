import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyWorkspace, loopx } from './harness';
import { GIT_IDENTITY } from '../fixtures/worktreeRepo';

interface CliRepoOptions {
  shared?: string;
  gitFlags?: readonly string[];
}

/**
 * A git repository with one commit on main (`shared.txt` holding `shared`) and a store at its root (`<parent>/app`),
 * both driven as a person would: the git program and bin/loopx. `git` runs with `gitFlags` before its arguments
 * unless a call gives its own; the caller removes `parent` when done.
 */
export function cliRepo(prefix: string, options: CliRepoOptions = {}) {
  const repo = drive(realpathSync(mkdtempSync(join(tmpdir(), prefix))), options);
  mkdirSync(repo.root);
  repo.git(['init', '-q', '-b', 'main']);
  writeFileSync(join(repo.root, 'shared.txt'), options.shared ?? 'one\n');
  repo.cli(['init']);
  repo.git(['add', '.']);
  repo.git(['commit', '-q', '-m', 'start']);
  return repo;
}

/**
 * A copy of `seed`'s repository and store (made by cliRepo and whatever the caller did next, every process on it ended),
 * in a folder of its own: what a suite's tests start from when each would otherwise make the same one again with six
 * processes (nothing in a git repository names its folder either).
 */
export function cliRepoCopy(seed: { parent: string }, prefix: string, options: CliRepoOptions = {}) {
  const repo = drive(realpathSync(mkdtempSync(join(tmpdir(), prefix))), options);
  copyWorkspace(join(seed.parent, 'app'), repo.root);
  return repo;
}

function drive(parent: string, options: CliRepoOptions) {
  const root = join(parent, 'app');
  const git = (args: string[], cwd = root, flags: readonly string[] = options.gitFlags ?? []) =>
    execFileSync('git', [...flags, ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...GIT_IDENTITY } }).trim();
  const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: root, env: { ...GIT_IDENTITY, ...env } });
  return { parent, root, git, cli };
}

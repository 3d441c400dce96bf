import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loopx } from './harness';
import { GIT_IDENTITY } from '../fixtures/worktreeRepo';

/**
 * A git repository with one commit on main (`shared.txt` holding `shared`) and a store at its root (`<parent>/app`),
 * both driven as a person would: the git program and bin/loopx. `git` runs with `gitFlags` before its arguments
 * unless a call gives its own; the caller removes `parent` when done.
 */
export function cliRepo(prefix: string, options: { shared?: string; gitFlags?: readonly string[] } = {}) {
  const parent = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const root = join(parent, 'app');
  mkdirSync(root);
  const git = (args: string[], cwd = root, flags: readonly string[] = options.gitFlags ?? []) =>
    execFileSync('git', [...flags, ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...GIT_IDENTITY } }).trim();
  git(['init', '-q', '-b', 'main']);
  writeFileSync(join(root, 'shared.txt'), options.shared ?? 'one\n');
  const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: root, env: { ...GIT_IDENTITY, ...env } });
  cli(['init']);
  git(['add', '.']);
  git(['commit', '-q', '-m', 'start']);
  return { parent, root, git, cli };
}

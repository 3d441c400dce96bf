import { gitAsync, resolveCommitAsync } from '../../kernel/worktrees/git';
import type { WorktreeRow } from '../../kernel/worktrees/worktreeRows';
import { RefusedError } from '../../kernel/errors';

export interface BranchFile {
  /** Path from the repository's top, as git names it. */
  path: string;
  status: 'added' | 'modified' | 'deleted';
}

/**
 * The files a branch changed since it started (`git diff base...branch`, the diff stat's range), with the two
 * commits to compare. Renames are shown as a deletion and an addition: both sides stay plain files. git runs as
 * non-blocking children (the extension host keeps serving the editor).
 */
export async function branchFiles(root: string, row: WorktreeRow): Promise<{ files: BranchFile[]; from: string; to: string; top: string }> {
  const to = await resolveCommitAsync(root, `refs/heads/${row.branch}`);
  if (!to) throw new RefusedError('git_failed', `the branch ${row.branch} no longer exists, so there are no changes to show`);
  const from = await gitAsync(root, ['merge-base', row.baseCommit, to]);
  const top = await gitAsync(root, ['rev-parse', '--show-toplevel']);
  const out = await gitAsync(root, ['diff', '--name-status', '-z', '--no-renames', from, to]);
  const parts = out.split('\0').filter(Boolean);
  const files: BranchFile[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const code = parts[i] as string;
    const status = code.startsWith('A') ? 'added' : code.startsWith('D') ? 'deleted' : 'modified';
    files.push({ path: parts[i + 1] as string, status });
  }
  return { files, from, to, top };
}

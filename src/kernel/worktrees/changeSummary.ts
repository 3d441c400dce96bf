import { existsSync } from 'node:fs';
import { gitRawAsync, resolveCommitAsync } from './git';
import type { WorktreeRow } from './worktreeRows';

/** What a todo's branch holds: its commits beyond where it started, the diff stat, and what is not committed yet. */
export interface ChangeSummary {
  branch: string;
  base: string;
  path: string;
  status: WorktreeRow['status'];
  /** The branch exists (a discarded one is gone; its head is `landedCommit`). */
  exists: boolean;
  head: string | null;
  /** Newest first, at most 50. */
  commits: { sha: string; subject: string }[];
  diffStat: { files: number; insertions: number; deletions: number; text: string };
  /** Files changed in the worktree and not committed (null when its folder is gone). */
  uncommitted: string[] | null;
  prUrl: string | null;
  landedCommit: string | null;
}

/**
 * The change of a todo's worktree, read from git (never stored: git is its truth). git runs as non-blocking children,
 * so VS Code's extension host keeps serving the editor while a large branch is read.
 */
export async function changeSummary(root: string, row: WorktreeRow): Promise<ChangeSummary> {
  const head = await resolveCommitAsync(root, `refs/heads/${row.branch}`);
  const range = `${row.baseCommit}..${row.branch}`;
  const log = head ? (await gitRawAsync(root, ['log', '--format=%H%x09%s', '-n', '50', range])).stdout : '';
  const commits = log
    .split('\n')
    .filter(Boolean)
    .map((line) => ({ sha: line.slice(0, 40), subject: line.slice(41) }));
  const stat = head ? (await gitRawAsync(root, ['diff', '--shortstat', `${row.baseCommit}...${row.branch}`])).stdout.trim() : '';
  const number = (re: RegExp) => Number(re.exec(stat)?.[1] ?? 0);
  let uncommitted: string[] | null = null;
  if (row.removedAt === null && existsSync(row.path)) {
    const status = await gitRawAsync(row.path, ['status', '--porcelain', '--untracked-files=all']);
    uncommitted =
      status.status === 0
        ? status.stdout
            .split('\n')
            .filter((l) => l.trim() !== '')
            .map((l) => l.slice(3))
        : null;
  }
  return {
    branch: row.branch,
    base: row.base,
    path: row.path,
    status: row.status,
    exists: head !== null,
    head,
    commits,
    diffStat: {
      files: number(/(\d+) files? changed/),
      insertions: number(/(\d+) insertions?/),
      deletions: number(/(\d+) deletions?/),
      text: stat,
    },
    uncommitted,
    prUrl: row.prUrl,
    landedCommit: row.landedCommit,
  };
}

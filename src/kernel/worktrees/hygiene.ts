import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { Kernel, Tx } from '../kernel';
import { requireHumanChannel } from '../authority';
import { dirtyFiles, gitRaw, isGitRepo, listGitWorktrees } from './git';
import { listWorktreeRows, worktreesDir } from './worktreeRows';

/** A worktree folder nothing more will happen in: its todo is done or gone, its branch landed, or the store never made it. */
export interface StrayWorktree {
  path: string;
  branch: string | null;
  todoId: string | null;
  goalId: string | null;
  why: string;
  /** Files not committed there (they would be lost with the folder). */
  uncommitted: number;
  /** Disk use of the folder, roughly (its files, not git's shared objects). */
  bytes: number;
}

/** Folder size, walking at most `limit` entries (a huge tree is reported as at least what was counted). */
export function folderBytes(dir: string, limit = 200_000): number {
  let total = 0;
  let seen = 0;
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (++seen > limit) return;
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) total += lstatSync(path).size;
    }
  };
  try {
    walk(dir);
  } catch {
    /* a folder that vanished or cannot be read counts as what was seen */
  }
  return total;
}

/** loopx's worktrees on disk that are stray (see StrayWorktree), for doctor and `worktree clean`. */
export function strayWorktrees(kernel: Kernel): { stray: StrayWorktree[]; open: number } {
  if (!isGitRepo(kernel.root)) return { stray: [], open: 0 };
  const top = gitRaw(kernel.root, ['rev-parse', '--show-toplevel']).stdout.trim();
  const rows = kernel.read((db) => listWorktreeRows(db));
  const ours = worktreesDir(top) + sep;
  const stray: StrayWorktree[] = [];
  let open = 0;
  for (const w of listGitWorktrees(top)) {
    if (!w.path.startsWith(ours) && !w.branch?.startsWith('loopx/')) continue;
    if (!existsSync(w.path)) continue;
    const row = rows.find((r) => r.branch === w.branch || r.path === w.path);
    const why = !row
      ? 'the store has no todo for it'
      : row.status === 'merged' || row.status === 'discarded'
        ? `its branch was ${row.status}`
        : row.todoStatus === 'killed'
          ? `todo ${row.todoId} was killed`
          : null;
    if (!why) {
      open++;
      continue;
    }
    stray.push({
      path: w.path,
      branch: w.branch,
      todoId: row?.todoId ?? null,
      goalId: row?.goalId ?? null,
      why,
      uncommitted: dirtyFiles(w.path).length,
      bytes: folderBytes(w.path),
    });
  }
  return { stray, open };
}

/**
 * Removes stray worktree folders on a person's word. Branches stay (their commits are not lost); a folder with
 * uncommitted changes stays too unless `force`. Returns what was removed and what was kept, and why.
 */
export function cleanWorktrees(kernel: Kernel, force: boolean): { removed: StrayWorktree[]; kept: StrayWorktree[] } {
  requireHumanChannel(kernel.requireActor(), 'removing worktree folders');
  const top = gitRaw(kernel.root, ['rev-parse', '--show-toplevel']).stdout.trim();
  const removed: StrayWorktree[] = [];
  const kept: StrayWorktree[] = [];
  for (const w of strayWorktrees(kernel).stray) {
    if (w.uncommitted > 0 && !force) {
      kept.push(w);
      continue;
    }
    const result = gitRaw(top, ['worktree', 'remove', ...(force ? ['--force'] : []), w.path]);
    if (result.status !== 0) {
      kept.push({ ...w, why: `${w.why}; git would not remove it: ${result.stderr.trim()}` });
      continue;
    }
    removed.push(w);
    const { todoId, goalId } = w;
    if (todoId) kernel.write((tx) => recordRemoved(tx, goalId, todoId, w.path, force && w.uncommitted > 0));
  }
  return { removed, kept };
}

/** Records that a todo's worktree folder is gone (the one writer of worktree.removed: discard and clean both come here). */
export function recordRemoved(tx: Tx, goalId: string | null, todoId: string, path: string, forced: boolean): void {
  tx.emit({ kind: 'worktree.removed', goalId, todoId, data: { path, forced } });
}

import { existsSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { Kernel, Tx } from '../kernel';
import { requireHumanChannel } from '../authority';
import { dirtyFilesAsync, gitRawAsync, listGitWorktreesAsync } from './git';
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
  /** When its todo last changed (its last event), or null for a folder the store does not know. */
  idleSince: string | null;
  /** Commits on its branch that its base does not have: the branch is kept for them (a folder's removal never drops one). */
  unmerged: number;
}

/** With an age, `worktree clean` also takes the folders of shipped and abandoned todos that sat that long. */
export interface CleanAge {
  olderThanSeconds: number;
  nowMs: number;
}

/**
 * Folder size, walking at most `limit` entries (a huge tree is reported as at least what was counted). Asynchronous:
 * a worktree's node_modules is a long walk, and VS Code's extension host must keep serving the editor meanwhile.
 */
export async function folderBytes(dir: string, limit = 200_000): Promise<number> {
  let total = 0;
  let seen = 0;
  const walk = async (d: string): Promise<void> => {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      if (++seen > limit) return;
      const path = join(d, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) total += (await lstat(path)).size;
    }
  };
  try {
    await walk(dir);
  } catch {
    /* a folder that vanished or cannot be read counts as what was seen */
  }
  return total;
}

/** The repository's top folder, or null when the root is in no git repository (git runs as a non-blocking child). */
async function topOf(root: string): Promise<string | null> {
  const result = await gitRawAsync(root, ['rev-parse', '--show-toplevel']);
  return result.status === 0 && result.stdout.trim() ? result.stdout.trim() : null;
}

/** loopx's worktrees on disk that are stray (see StrayWorktree), for doctor and `worktree clean`. git runs as non-blocking children. */
export async function strayWorktrees(kernel: Kernel, age?: CleanAge): Promise<{ stray: StrayWorktree[]; open: number }> {
  const top = await topOf(kernel.root);
  if (!top) return { stray: [], open: 0 };
  const rows = kernel.read((db) => listWorktreeRows(db));
  const ours = worktreesDir(top) + sep;
  const stray: StrayWorktree[] = [];
  let open = 0;
  for (const w of await listGitWorktreesAsync(top)) {
    if (!w.path.startsWith(ours) && !w.branch?.startsWith('loopx/')) continue;
    if (!existsSync(w.path)) continue;
    const row = rows.find((r) => r.branch === w.branch || r.path === w.path);
    const idleSince = row ? lastActivity(kernel, row.todoId) : null;
    const idle = age !== undefined && idleSince !== null && age.nowMs - Date.parse(idleSince) >= age.olderThanSeconds * 1000;
    const why = !row
      ? 'the store has no todo for it'
      : row.status === 'merged' || row.status === 'discarded'
        ? `its branch was ${row.status}`
        : row.todoStatus === 'killed'
          ? `todo ${row.todoId} was killed`
          : idle && row.todoStatus === 'shipped'
            ? `todo ${row.todoId} shipped (last change ${String(idleSince).slice(0, 10)}) and its branch waits for a person`
            : idle && row.todoStatus !== 'claimed'
              ? `todo ${row.todoId} was not worked on since ${String(idleSince).slice(0, 10)}`
              : null;
    // With an age, only what sat that long goes (a folder the store does not know has no age: it always goes).
    if (!why || (age !== undefined && row && !idle)) {
      if (!why) open++;
      continue;
    }
    stray.push({
      path: w.path,
      branch: w.branch,
      todoId: row?.todoId ?? null,
      goalId: row?.goalId ?? null,
      why,
      uncommitted: (await dirtyFilesAsync(w.path)).length,
      bytes: await folderBytes(w.path),
      idleSince,
      unmerged: await unmergedCommits(top, row ? row.base : 'HEAD', w.branch),
    });
  }
  return { stray, open };
}

/**
 * Removes stray worktree folders on a person's word. Branches stay (their commits are not lost); a folder with
 * uncommitted changes stays too unless `force`. Returns what was removed and what was kept, and why.
 */
export function cleanWorktrees(kernel: Kernel, force: boolean, age?: CleanAge): Promise<Cleaned> {
  requireHumanChannel(kernel.requireActor(), 'removing worktree folders');
  return removeStray(kernel, force, age);
}

/** What a clean-up removed, and what it kept and why. */
export interface Cleaned {
  removed: StrayWorktree[];
  kept: StrayWorktree[];
}

/**
 * The automatic pass a person turned on (`loopx run --clean-worktrees 7d`, VS Code's `loopx.worktrees.cleanAfter`):
 * the same removal as `worktree clean --older-than`, by the kernel, never with force: a folder with uncommitted
 * changes is only reported.
 */
export function autoCleanWorktrees(kernel: Kernel, age: CleanAge): Promise<Cleaned> {
  return removeStray(kernel, false, age);
}

async function removeStray(kernel: Kernel, force: boolean, age?: CleanAge): Promise<Cleaned> {
  const removed: StrayWorktree[] = [];
  const kept: StrayWorktree[] = [];
  const top = await topOf(kernel.root);
  if (!top) return { removed, kept };
  for (const w of (await strayWorktrees(kernel, age)).stray) {
    if (w.uncommitted > 0 && !force) {
      kept.push(w);
      continue;
    }
    const result = await gitRawAsync(top, ['worktree', 'remove', ...(force ? ['--force'] : []), w.path]);
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

/** When a todo last changed: its last event's time. */
function lastActivity(kernel: Kernel, todoId: string): string | null {
  const row = kernel.read((db) => db.prepare('SELECT max(at) AS at FROM events WHERE todo_id = ?').get(todoId));
  return row?.at ? String(row.at) : null;
}

/** How many commits `branch` has that `base` has not (0 when either is gone). */
async function unmergedCommits(top: string, base: string, branch: string | null): Promise<number> {
  if (!branch) return 0;
  const result = await gitRawAsync(top, ['rev-list', '--count', `${base}..${branch}`]);
  return result.status === 0 ? Number(result.stdout.trim()) : 0;
}

/** Records that a todo's worktree folder is gone (the one writer of worktree.removed: discard and clean both come here). */
export function recordRemoved(tx: Tx, goalId: string | null, todoId: string, path: string, forced: boolean): void {
  tx.emit({ kind: 'worktree.removed', goalId, todoId, data: { path, forced } });
}

import { existsSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { gitRaw } from './git';
import type { Row, SqliteDb } from '../db/sqliteDb';
import { rowReader } from '../rowReader';
import { LANDINGS } from './worktreeEventSchemas';

/** A todo's worktree as the store knows it. */
export const worktreeFromRow = (row: Row) => {
  const r = rowReader('worktrees', row);
  return {
    todoId: r.text('todo_id'),
    goalId: r.text('goal_id'),
    branch: r.text('branch'),
    base: r.text('base'),
    baseCommit: r.text('base_commit'),
    path: r.text('path'),
    status: r.oneOf('status', ['open', ...LANDINGS] as const),
    createdAt: r.text('created_at'),
    landedAt: r.maybeText('landed_at'),
    landedBy: r.maybeText('landed_by'),
    landedChannel: r.maybeText('landed_channel'),
    landedCommit: r.maybeText('landed_commit'),
    prUrl: r.maybeText('pr_url'),
    removedAt: r.maybeText('removed_at'),
  };
};
export type WorktreeRow = ReturnType<typeof worktreeFromRow>;

/** A shipped todo's change still on its branch: it waits for a person to land it (merge, pull request) or discard it. */
export function waitsToLand(row: Pick<WorktreeRow, 'status'> & { todoStatus: string }): boolean {
  return row.status === 'open' && row.todoStatus === 'shipped';
}

export function findWorktree(db: SqliteDb, todoId: string): WorktreeRow | undefined {
  const row = db.prepare('SELECT * FROM worktrees WHERE todo_id = ?').get(todoId);
  return row ? worktreeFromRow(row) : undefined;
}

/**
 * Whether a todo's recorded branch is still its own, so that its next turn continues on it: neither merged nor
 * discarded (a landed branch starts over from the base). The store records a todo's worktree at its first turn's
 * start, so such a branch is one an agent has worked on: its next folder holds that work, or is made from it.
 */
export function branchInUse(row: WorktreeRow | undefined): row is WorktreeRow {
  return row !== undefined && row.status !== 'merged' && row.status !== 'discarded';
}

export function listWorktreeRows(db: SqliteDb, goalId?: string): (WorktreeRow & { todoStatus: string; todoTitle: string })[] {
  const rows = db
    .prepare(
      `SELECT w.*, t.status AS todo_status, t.title AS todo_title FROM worktrees w JOIN todos t ON t.id = w.todo_id
        WHERE ? IS NULL OR w.goal_id = ? ORDER BY t.num`,
    )
    .all(goalId ?? null, goalId ?? null);
  return rows.map((row) => ({ ...worktreeFromRow(row), todoStatus: String(row.todo_status), todoTitle: String(row.todo_title) }));
}

/** Where a workspace's worktrees live: a folder beside it (inside it, test runners and watchers would see them twice). */
export function worktreesDir(gitTop: string): string {
  return join(dirname(gitTop), `${basename(gitTop)}.loopx-worktrees`);
}

/** A todo's branch: `loopx/T3-parse-quoted-fields`, from its id and the start of its title. */
export function branchFor(todoId: string, title: string): string {
  const slug = title
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `loopx/${todoId}${slug ? `-${slug}` : ''}`;
}

/**
 * Where a todo's work is: its worktree's folder that matches the workspace root, while it has an open one on disk;
 * else the root. Kernel-run evidence and acceptance checks run here, so they test the todo's branch, not the base.
 */
export function todoWorkFolder(db: SqliteDb, root: string, todoId: string | null | undefined): string {
  const row = todoId ? findWorktree(db, todoId) : undefined;
  if (!row || row.removedAt !== null || (row.status !== 'open' && row.status !== 'pr') || !existsSync(row.path)) return root;
  const top = gitRaw(root, ['rev-parse', '--show-toplevel']).stdout.trim();
  const inside = top ? relative(top, root) : '';
  const folder = inside ? join(row.path, inside) : row.path;
  return existsSync(folder) ? folder : row.path;
}

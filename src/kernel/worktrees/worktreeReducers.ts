import type { SqliteDb } from '../db/sqliteDb';
import type { StoredEvent } from '../events/eventTypes';

type WorktreeKind = 'goal.worktree_set' | 'worktree.created' | 'worktree.landed' | 'worktree.removed';
type Reducer<K extends WorktreeKind> = (db: SqliteDb, e: Extract<StoredEvent, { kind: K }>) => void;

/** The state changes of worktree events, spread into the kernel's reducers (events/log.ts): the only code writing them. */
export const worktreeReducers: { [K in WorktreeKind]: Reducer<K> } = {
  'goal.worktree_set': (db, e) => {
    db.prepare('UPDATE goals SET worktree_base = ?, updated_at = ? WHERE id = ?').run(e.data.base, e.at, e.goalId);
    if (e.data.setup !== undefined) db.prepare('UPDATE goals SET worktree_setup = ? WHERE id = ?').run(e.data.setup, e.goalId);
  },
  'worktree.created': (db, e) => {
    const d = e.data;
    // A todo's worktree made again (its folder was removed, or its branch discarded) starts over as open.
    db.prepare(
      `INSERT INTO worktrees (todo_id, goal_id, branch, base, base_commit, path, status, created_at) VALUES (?, ?, ?, ?, ?, ?, 'open', ?)
        ON CONFLICT (todo_id) DO UPDATE SET branch = excluded.branch, base = excluded.base, base_commit = excluded.base_commit,
          path = excluded.path, status = 'open', created_at = excluded.created_at, landed_at = NULL, landed_by = NULL,
          landed_channel = NULL, landed_commit = NULL, pr_url = NULL, removed_at = NULL`,
    ).run(e.todoId, e.goalId, d.branch, d.base, d.baseCommit, d.path, e.at);
  },
  'worktree.landed': (db, e) => {
    const d = e.data;
    const channel = (e.data as { channel?: string }).channel ?? null;
    const changed = db
      .prepare(
        `UPDATE worktrees SET status = ?, landed_at = ?, landed_by = ?, landed_channel = ?, landed_commit = ?, pr_url = ? WHERE todo_id = ?`,
      )
      .run(d.how, e.at, e.actor, channel, d.how === 'discarded' ? d.head : d.commit, d.url, e.todoId);
    if (changed.changes !== 1) throw new Error(`event lands the worktree of ${e.todoId}, which has none`);
  },
  'worktree.removed': (db, e) => {
    db.prepare('UPDATE worktrees SET removed_at = ? WHERE todo_id = ?').run(e.at, e.todoId);
  },
};

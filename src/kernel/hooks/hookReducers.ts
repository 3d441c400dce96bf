import type { SqliteDb } from '../db/sqliteDb';
import type { StoredEvent } from '../events/eventTypes';

type HookKind = 'hook.added' | 'hook.removed' | 'hook.run_claimed' | 'hook.ran';
type Reducer<K extends HookKind> = (db: SqliteDb, e: Extract<StoredEvent, { kind: K }>) => void;

/** The state changes of hook events, spread into the kernel's reducers (events/log.ts): the only code writing hooks. */
export const hookReducers: { [K in HookKind]: Reducer<K> } = {
  'hook.added': (db, e) => {
    const d = e.data;
    const channel = (e.data as { channel?: string }).channel ?? null;
    db.prepare(
      `INSERT INTO hooks (id, num, command, triggers, goal_id, timeout_seconds, note, status, added_by, added_channel, created_at, since_seq)
        VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?)`,
    ).run(d.id, d.num, d.command, JSON.stringify(d.on), d.goal, d.timeoutSeconds, d.note, e.actor, channel, e.at, e.seq);
  },
  'hook.removed': (db, e) => {
    const changed = db
      .prepare(`UPDATE hooks SET status = 'removed', removed_at = ?, removed_by = ? WHERE id = ? AND status = 'active'`)
      .run(e.at, e.actor, e.data.id);
    if (changed.changes !== 1) throw new Error(`event removes hook ${e.data.id}, which is not active`);
  },
  'hook.run_claimed': (db, e) => {
    const d = e.data;
    db.prepare(`INSERT INTO hook_runs (hook_id, event_seq, trigger, token, claimed_by, claimed_at) VALUES (?, ?, ?, ?, ?, ?)`).run(
      d.id,
      d.seq,
      d.trigger,
      d.token,
      d.by,
      e.at,
    );
  },
  'hook.ran': (db, e) => {
    const d = e.data;
    const changed = db
      .prepare(
        `UPDATE hook_runs SET ended_at = ?, exit_code = ?, duration_ms = ?, output_tail = ?, timed_out = ?, error = ?
          WHERE hook_id = ? AND event_seq = ? AND token = ? AND ended_at IS NULL`,
      )
      .run(e.at, d.exitCode, d.durationMs, d.outputTail, d.timedOut ? 1 : 0, d.error, d.id, d.seq, d.token);
    if (changed.changes !== 1) throw new Error(`event ends run of hook ${d.id} for event ${d.seq}, which is not claimed with its token`);
  },
};

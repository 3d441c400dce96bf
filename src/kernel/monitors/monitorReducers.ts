import type { SqliteDb } from '../db/sqliteDb';
import type { StoredEvent } from '../events/eventTypes';
import { type ReducersOf, touchTodo } from '../events/reducerKit';

type MonitorKind =
  | 'monitor.added'
  | 'monitor.approved'
  | 'goal.checks_allowed'
  | 'monitor.run_claimed'
  | 'monitor.checked'
  | 'monitor.fired'
  | 'monitor.expired'
  | 'monitor.cancelled';

/** A monitor stops waiting; its todo gets the outcome as its continuation (a cancel as part of a kill leaves it). */
function endMonitor(
  db: SqliteDb,
  e: StoredEvent,
  status: 'fired' | 'expired' | 'cancelled',
  id: string,
  result: string,
  continuation: string | null,
): void {
  const changed = db
    .prepare(
      `UPDATE monitors SET status = ?, ended_at = ?, ended_by = ?, result = ?, next_check_at = NULL, running_token = NULL, running_until = NULL
      WHERE id = ? AND status = 'waiting'`,
    )
    .run(status, e.at, e.actor, result, id);
  if (changed.changes !== 1) throw new Error(`event ends monitor ${id}, which is not waiting`);
  if (continuation !== null) touchTodo(db, e.todoId, e.at, 'continuation = ?', [continuation]);
}

/** The state changes of monitor events, spread into the kernel's reducers (events/log.ts). */
export const monitorReducers: ReducersOf<MonitorKind> = {
  'monitor.added': (db, e) => {
    const d = e.data;
    // Events from before schema 7 carry no approval: an agent's check waits for a person, as the migration says.
    const approval = d.approval ?? (d.kind === 'check' && e.actorKind === 'agent' ? 'pending' : 'person');
    const approvedBy = approval === 'pattern' ? (d.pattern ?? null) : approval === 'person' ? e.actor : null;
    db.prepare(
      `INSERT INTO monitors (id, num, goal_id, todo_id, kind, command, every_seconds, until_cond, run_limit_seconds, expires_at, note,
        status, added_by, created_at, next_check_at, run_count, approval, approved_by)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'waiting', ?, ?, ?, 0, ?, ?)`,
    ).run(
      d.id,
      d.num,
      e.goalId,
      e.todoId,
      d.kind,
      d.command,
      d.everySeconds,
      d.until,
      d.runLimitSeconds,
      d.expiresAt,
      d.note,
      e.actor,
      e.at,
      d.nextCheckAt,
      approval,
      approvedBy,
    );
  },
  'monitor.approved': (db, e) => {
    const d = e.data;
    const channel = (e.data as { channel?: string }).channel ?? null;
    // Approved now: its first run is due at once.
    const changed = db
      .prepare(
        `UPDATE monitors SET approval = ?, approved_by = ?, approval_channel = ?, next_check_at = ?
          WHERE id = ? AND status = 'waiting' AND approval = 'pending'`,
      )
      .run(d.pattern === null ? 'approved' : 'pattern', d.pattern ?? e.actor, d.pattern === null ? channel : null, e.at, d.id);
    if (changed.changes !== 1) throw new Error(`event approves monitor ${d.id}, which does not wait for a person`);
  },
  'goal.checks_allowed': (db, e) => {
    db.prepare('UPDATE goals SET allowed_checks = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(e.data.patterns), e.at, e.goalId);
  },
  'monitor.run_claimed': (db, e) => {
    const d = e.data;
    db.prepare('UPDATE monitors SET running_token = ?, running_until = ?, next_check_at = ? WHERE id = ?').run(
      d.token,
      d.until,
      d.nextCheckAt,
      d.id,
    );
  },
  'monitor.checked': (db, e) => {
    const d = e.data;
    db.prepare(
      `INSERT INTO monitor_runs (monitor_id, n, at, exit_code, duration_ms, output_tail, output_sha256, timed_out, error)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(d.id, d.n, d.startedAt, d.exitCode, d.durationMs, d.outputTail, d.outputSha256, d.timedOut ? 1 : 0, d.error);
    db.prepare(
      `UPDATE monitors SET run_count = run_count + 1, last_run_at = ?, last_exit_code = ?, last_output_sha256 = ?,
        running_token = NULL, running_until = NULL WHERE id = ?`,
    ).run(d.startedAt, d.exitCode, d.outputSha256, d.id);
  },
  'monitor.fired': (db, e) => endMonitor(db, e, 'fired', e.data.id, e.data.result, e.data.continuation),
  'monitor.expired': (db, e) => endMonitor(db, e, 'expired', e.data.id, e.data.result, e.data.continuation),
  'monitor.cancelled': (db, e) => endMonitor(db, e, 'cancelled', e.data.id, e.data.result, e.data.continuation),
};

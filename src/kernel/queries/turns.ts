import type { SqliteDb, Row } from '../db/sqliteDb';
import { NotFoundError } from '../errors';
import { rowReader } from '../rowReader';

export const RESULT_KINDS = [
  'validated_progress',
  'validated_completion',
  'user_action_required',
  'wait',
  'host_failure',
  'validation_failed',
] as const;
export type ResultKind = (typeof RESULT_KINDS)[number];
export const ROUTES = ['ready_for_host', 'wait', 'user_action_required', 'blocked'] as const;
export type Route = (typeof ROUTES)[number];

export const turnFromRow = (row: Row) => {
  const r = rowReader('turns', row);
  const result = r.maybeText('result_kind');
  return {
    id: r.text('id'),
    goalId: r.text('goal_id'),
    todoId: r.maybeText('todo_id'),
    agent: r.text('agent'),
    host: r.text('host'),
    route: r.oneOf('route', ROUTES),
    promptPath: r.maybeText('prompt_path'),
    startedAt: r.text('started_at'),
    endedAt: r.maybeText('ended_at'),
    resultKind: result === null ? null : r.oneOf('result_kind', RESULT_KINDS),
    exitCode: row.exit_code === null ? null : r.int('exit_code'),
    spent: r.int('spent') === 1,
    startSeq: r.int('start_seq'),
    endSeq: r.maybeInt('end_seq'),
  };
};
export type Turn = ReturnType<typeof turnFromRow>;

export function getTurn(db: SqliteDb, id: string): Turn {
  const row = db.prepare('SELECT * FROM turns WHERE id = ?').get(id);
  if (!row) throw new NotFoundError('turn', id);
  return turnFromRow(row);
}

export function listTurns(db: SqliteDb, filter: { goalId?: string; todoId?: string; limit?: number } = {}): Turn[] {
  const limit = Math.max(1, Math.min(filter.limit ?? 100, 10_000));
  const rows = filter.todoId
    ? db.prepare('SELECT * FROM turns WHERE todo_id = ? ORDER BY num DESC LIMIT ?').all(filter.todoId, limit)
    : filter.goalId
      ? db.prepare('SELECT * FROM turns WHERE goal_id = ? ORDER BY num DESC LIMIT ?').all(filter.goalId, limit)
      : db.prepare('SELECT * FROM turns ORDER BY num DESC LIMIT ?').all(limit);
  return rows.map(turnFromRow);
}

export function countTurns(db: SqliteDb): number {
  return Number(db.prepare('SELECT count(*) AS n FROM turns').get()?.n ?? 0);
}

/** Turns started and not yet finished, oldest first. */
export function openTurns(db: SqliteDb): Turn[] {
  return db.prepare('SELECT * FROM turns WHERE ended_at IS NULL ORDER BY num').all().map(turnFromRow);
}

/**
 * should-run's `no_change`: the goal's last finished turn made no validated progress, and not one event about the
 * goal has happened since it ended. Only a change (a human's decision, a new todo, an agent's write, a monitor that
 * fired, a recurring todo's occurrence that came due) lifts it.
 */
export function stuckSinceLastTurn(db: SqliteDb, goalId: string, at?: string): boolean {
  const last = db
    .prepare('SELECT result_kind, end_seq, ended_at FROM turns WHERE goal_id = ? AND ended_at IS NOT NULL ORDER BY num DESC LIMIT 1')
    .get(goalId);
  if (!last || last.result_kind === 'validated_progress' || last.result_kind === 'validated_completion') return false;
  // A recurring todo's occurrence that came due since is a change too (time, not an event, made it ready).
  if (
    at &&
    db
      .prepare(`SELECT 1 FROM todos WHERE goal_id = ? AND status = 'open' AND ready_at > ? AND ready_at <= ? LIMIT 1`)
      .get(goalId, String(last.ended_at), at)
  )
    return false;
  // A monitor's routine runs are not a change; its firing (or expiring, or being cancelled) is.
  return (
    db
      .prepare(`SELECT 1 FROM events WHERE seq > ? AND goal_id = ? AND kind NOT IN ('monitor.run_claimed', 'monitor.checked') LIMIT 1`)
      .get(Number(last.end_seq), goalId) === undefined
  );
}

import type { Row, SqliteDb } from '../db/sqliteDb';
import { NotFoundError } from '../errors';
import { rowReader } from '../rowReader';
import { formatDuration } from '../time';
import { limitSql } from '../db/limitSql';

export const MONITOR_STATUSES = ['waiting', 'fired', 'expired', 'cancelled'] as const;
export type MonitorStatus = (typeof MONITOR_STATUSES)[number];

export interface MonitorRun {
  n: number;
  at: string;
  exitCode: number | null;
  durationMs: number;
  outputTail: string;
  outputSha256: string;
  timedOut: boolean;
  /** Why it could not run or did not finish (command not found, time limit). */
  error: string | null;
}

const runFromRow = (row: Row, prefix = ''): MonitorRun => {
  const r = rowReader('monitor_runs', row);
  return {
    n: r.int(`${prefix}n`),
    at: r.text(`${prefix}at`),
    exitCode: r.maybeInt(`${prefix}exit_code`),
    durationMs: r.int(`${prefix}duration_ms`),
    outputTail: r.text(`${prefix}output_tail`),
    outputSha256: r.text(`${prefix}output_sha256`),
    timedOut: r.int(`${prefix}timed_out`) === 1,
    error: r.maybeText(`${prefix}error`),
  };
};

export const monitorFromRow = (row: Row) => {
  const r = rowReader('monitors', row);
  return {
    id: r.text('id'),
    goalId: r.text('goal_id'),
    todoId: r.text('todo_id'),
    kind: r.oneOf('kind', ['check', 'timer'] as const),
    /** The command it runs (null for a pure timer). */
    check: r.maybeText('command'),
    everySeconds: r.maybeInt('every_seconds'),
    /** exit0 | change | match:REGEX; a timer: time. */
    until: r.text('until_cond'),
    runLimitSeconds: r.maybeInt('run_limit_seconds'),
    expiresAt: r.maybeText('expires_at'),
    note: r.text('note'),
    status: r.oneOf('status', MONITOR_STATUSES),
    addedBy: r.text('added_by'),
    createdAt: r.text('created_at'),
    /** The next run (a timer: when it fires); null once it stopped waiting. */
    nextCheckAt: r.maybeText('next_check_at'),
    runCount: r.int('run_count'),
    /** A ticker is running the check now (until this time at the latest). */
    runningUntil: r.maybeText('running_until'),
    lastRun: row.lr_n === null || row.lr_n === undefined ? null : runFromRow(row, 'lr_'),
    endedAt: r.maybeText('ended_at'),
    endedBy: r.maybeText('ended_by'),
    /** Why it stopped waiting, in words. */
    result: r.maybeText('result'),
    /**
     * Who lets its check run: `person` (a person added it), `pattern` (an agent's check that matched a pattern a
     * person allowed for the goal), `approved` (a person approved it), `pending` (it waits for a person; nothing runs).
     */
    approval: r.oneOf('approval', ['person', 'pattern', 'pending', 'approved'] as const),
    /** The person who added or approved it, or the pattern it matched. */
    approvedBy: r.maybeText('approved_by'),
    /** How a person approved it: vscode or tty. */
    approvalChannel: r.maybeText('approval_channel'),
  };
};
export type Monitor = ReturnType<typeof monitorFromRow>;

/** Monitors with their last run joined in (the run numbered run_count is the newest recorded one). */
const SELECT = `SELECT m.*, r.n AS lr_n, r.at AS lr_at, r.exit_code AS lr_exit_code, r.duration_ms AS lr_duration_ms,
  r.output_tail AS lr_output_tail, r.output_sha256 AS lr_output_sha256, r.timed_out AS lr_timed_out, r.error AS lr_error
  FROM monitors m LEFT JOIN monitor_runs r ON r.monitor_id = m.id AND r.n = m.run_count`;

export function getMonitor(db: SqliteDb, id: string): Monitor {
  const row = db.prepare(`${SELECT} WHERE m.id = ?`).get(id);
  if (!row) throw new NotFoundError('monitor', id);
  return monitorFromRow(row);
}

/** Waiting monitors first (soonest check first), then the ended ones, newest first. */
export function listMonitors(
  db: SqliteDb,
  filter: { goalId?: string; todoId?: string; status?: MonitorStatus; limit?: number } = {},
): Monitor[] {
  const where: string[] = [];
  const params: string[] = [];
  if (filter.goalId) {
    where.push('m.goal_id = ?');
    params.push(filter.goalId);
  }
  if (filter.todoId) {
    where.push('m.todo_id = ?');
    params.push(filter.todoId);
  }
  if (filter.status) {
    where.push('m.status = ?');
    params.push(filter.status);
  }
  const limit = limitSql(Math.max(1, Math.min(filter.limit ?? 500, 10_000)));
  return db
    .prepare(
      `${SELECT} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY m.status <> 'waiting', CASE WHEN m.status = 'waiting' THEN m.next_check_at END, m.num DESC ${limit}`,
    )
    .all(...params)
    .map(monitorFromRow);
}

/** A monitor's runs, newest first. */
export function monitorRuns(db: SqliteDb, monitorId: string, limit = 50): MonitorRun[] {
  return db
    .prepare(`SELECT * FROM monitor_runs WHERE monitor_id = ? ORDER BY n DESC ${limitSql(Math.max(1, Math.min(limit, 10_000)))}`)
    .all(monitorId)
    .map((row) => runFromRow(row));
}

/** The monitor a todo waits on, if any (at most one waits per todo). */
export function waitingMonitor(db: SqliteDb, todoId: string): Monitor | null {
  const row = db.prepare(`${SELECT} WHERE m.todo_id = ? AND m.status = 'waiting'`).get(todoId);
  return row ? monitorFromRow(row) : null;
}

/**
 * The next moment a waiting monitor of the goal can change something: its next check (a timer: its time), or its
 * expiry. Checks of inactive goals are not run, so those goals have none. May lie in the past (a check is overdue
 * because nothing ticked): then something can change as soon as a tick runs.
 */
export function nextMonitorMoment(db: SqliteDb, goalId: string): string | null {
  const row = db
    .prepare(
      `SELECT min(CASE WHEN approval = 'pending' THEN expires_at
          ELSE min(coalesce(next_check_at, expires_at), coalesce(expires_at, next_check_at)) END) AS t
        FROM monitors WHERE goal_id = ? AND status = 'waiting'`,
    )
    .get(goalId);
  return (row?.t as string | null) ?? null;
}

/** In words, for lists and continuations: "`npm run ci` every 5m until exit0", "a timer until 14:00". */
export function describeMonitor(m: Pick<Monitor, 'kind' | 'check' | 'everySeconds' | 'until' | 'nextCheckAt'>): string {
  if (m.kind === 'timer') return `a timer${m.nextCheckAt ? ` until ${m.nextCheckAt}` : ''}`;
  return `\`${m.check ?? ''}\` every ${formatDuration(m.everySeconds ?? 0)} until ${m.until}`;
}

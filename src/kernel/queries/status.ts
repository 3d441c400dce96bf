import type { SqliteDb } from '../db/sqliteDb';
import { type Gate, type Goal, type Todo, TODO_COLUMNS, todoFromRow } from '../model';
import { iso } from '../time';
import { listGates, listGoals } from './lists';
import { nextClaimable } from './ready';
import { leaseLapsedSql } from './lookups';
import { type Monitor, listMonitors } from './monitors';
import { type QuotaState, type ShouldRun, quotaState, shouldRun } from './quota';

export interface GoalStatusLine {
  id: string;
  title: string;
  status: Goal['status'];
  nextTodo: Todo | null;
  quota: QuotaState;
  shouldRun: ShouldRun;
  counts: Record<Todo['status'], number>;
}

export interface StatusReport {
  at: string;
  goals: GoalStatusLine[];
  pendingGates: Gate[];
  blocked: Todo[];
  lapsedLeases: Todo[];
  /** Monitors still waiting (what will run unattended), soonest check first. */
  monitors: Monitor[];
}

/** The attention queue: what needs a human, and what each goal does next. Read-only, one snapshot. */
export function statusReport(db: SqliteDb, nowMs: number): StatusReport {
  const at = iso(nowMs);
  const counts = new Map<string, Record<Todo['status'], number>>();
  for (const row of db.prepare('SELECT goal_id, status, count(*) AS n FROM todos GROUP BY goal_id, status').all()) {
    const goalId = String(row.goal_id);
    const entry = counts.get(goalId) ?? { open: 0, claimed: 0, blocked: 0, shipped: 0, killed: 0 };
    entry[row.status as Todo['status']] = Number(row.n);
    counts.set(goalId, entry);
  }
  const goals = listGoals(db).map((goal) => {
    const nextTodo = goal.status === 'active' ? nextClaimable(db, at, goal.id) : null;
    const quota = quotaState(db, goal, nowMs);
    return {
      id: goal.id,
      title: goal.title,
      status: goal.status,
      nextTodo,
      quota,
      shouldRun: shouldRun(db, goal, nowMs, { quota, hasReadyWork: nextTodo !== null }),
      counts: counts.get(goal.id) ?? { open: 0, claimed: 0, blocked: 0, shipped: 0, killed: 0 },
    };
  });
  const select = `SELECT ${TODO_COLUMNS} FROM todos t`;
  return {
    at,
    goals,
    pendingGates: listGates(db, { pending: true }),
    blocked: db.prepare(`${select} WHERE t.status = 'blocked' ORDER BY t.priority, t.num`).all().map(todoFromRow),
    lapsedLeases: db
      .prepare(`${select} WHERE ${leaseLapsedSql()} ORDER BY t.lease_expires_at`)
      .all(at)
      .map(todoFromRow),
    monitors: listMonitors(db, { status: 'waiting' }),
  };
}

import type { SqliteDb } from '../db/sqliteDb';
import { type Gate, type Goal, type ReviewPolicy, type Todo, TODO_COLUMNS, todoFromRow } from '../model';
import { iso } from '../time';
import { nextClaimable, leaseLapsedSql } from '../todos/todoQueries';
import { type Monitor, listMonitors } from '../monitors/monitorQueries';
import { type QuotaState, type ShouldRun, quotaState, shouldRun } from '../goals/quotaQueries';
import { FAILING_AFTER, type Retry, recentRetries } from '../turns/backoff';
import { openTurnSlots } from '../turns/turnSlots';
import { listGates } from '../gates/gateQueries';
import { listGoals } from '../goals/goalQueries';
import { limitSql } from '../db/limitSql';

export interface GoalStatusLine {
  id: string;
  title: string;
  status: Goal['status'];
  /**
   * A paused goal that waits for a person to start it: one an agent or a script created (it starts paused) or an
   * agent paused. Absent for every other goal, a person's own pause included.
   */
  waitsForPerson?: { by: string; proposed: boolean };
  /** The host (agent CLI) a person chose for its turns (goals/goalHost.ts); absent: chosen at each run. */
  host?: string;
  /** Who reviews what its agents ship (goals/goalReview.ts); absent: no review. */
  review?: ReviewPolicy;
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
  /** Todos whose last FAILING_AFTER or more turns in a row failed: loopx keeps retrying them, slower; a person looks. */
  failing: FailingTodo[];
  /**
   * Open turns that no longer hold a slot (their agent let go of the todo more than a minute ago, no deadline ahead):
   * until someone finishes them, no other turn takes their todo and each keeps a unit of its goal's budget.
   */
  heldOpen: HeldOpenTurn[];
  /** With a limit: how many of each list were left out; absent when none was cut. */
  more?: Partial<Record<'pendingGates' | 'blocked' | 'lapsedLeases' | 'monitors', number>>;
}

export interface HeldOpenTurn {
  id: string;
  goalId: string;
  todoId: string | null;
  agent: string;
  startedAt: string;
}

/** A todo that keeps failing: its latest turn, how many failed in a row, and when a turn start may take it again. */
export type FailingTodo = Omit<Retry, 'changed'> & { title: string };

/** Turns older than this are not looked at for "keeps failing" (a todo retried at least hourly has a newer one). */
const FAILING_LOOKBACK_SECONDS = 24 * 3600;

export interface StatusOptions {
  /** At most this many items in each list (gates, blocked, lapsed leases, monitors); the rest are counted in `more`. */
  limit?: number;
}

/**
 * Each goal's todos by status (every goal that has todos; one goal's with `goalId`), from the counts the store keeps
 * as todos change (migration 0016), not by walking them.
 */
/** A goal's counts before it has todos: every status at 0. */
export function noTodos(): Record<Todo['status'], number> {
  return { open: 0, claimed: 0, in_review: 0, blocked: 0, shipped: 0, killed: 0 };
}

export function todoCounts(db: SqliteDb, goalId?: string): Map<string, Record<Todo['status'], number>> {
  const counts = new Map<string, Record<Todo['status'], number>>();
  const rows = goalId
    ? db.prepare('SELECT goal_id, status, n FROM todo_counts WHERE goal_id = ? AND n > 0').all(goalId)
    : db.prepare('SELECT goal_id, status, n FROM todo_counts WHERE n > 0').all();
  for (const row of rows) {
    const id = String(row.goal_id);
    const entry = counts.get(id) ?? noTodos();
    entry[row.status as Todo['status']] = Number(row.n);
    counts.set(id, entry);
  }
  return counts;
}

/** The attention queue: what needs a human, and what each goal does next. Read-only, one snapshot. */
export function statusReport(db: SqliteDb, nowMs: number, options: StatusOptions = {}): StatusReport {
  const at = iso(nowMs);
  const counts = todoCounts(db);
  const goals = listGoals(db).map((goal) => {
    const nextTodo = goal.status === 'active' ? nextClaimable(db, at, goal.id) : null;
    const quota = quotaState(db, goal, nowMs);
    const waits = goal.status === 'paused' ? pausedFor(db, goal.id) : null;
    return {
      id: goal.id,
      title: goal.title,
      status: goal.status,
      ...(goal.host ? { host: goal.host } : {}),
      ...(goal.review ? { review: goal.review } : {}),
      ...(waits ? { waitsForPerson: waits } : {}),
      nextTodo,
      quota,
      shouldRun: shouldRun(db, goal, nowMs, { quota, firstReady: nextTodo?.id ?? null }),
      counts: counts.get(goal.id) ?? noTodos(),
    };
  });
  const select = `SELECT ${TODO_COLUMNS} FROM todos t`;
  const limit = options.limit === undefined ? '' : ` ${limitSql(Math.max(1, options.limit))}`;
  const report: StatusReport = {
    at,
    goals,
    pendingGates: options.limit === undefined ? listGates(db, { pending: true }) : listGates(db, { pending: true, limit: options.limit }),
    blocked: db.prepare(`${select} WHERE t.status = 'blocked' ORDER BY t.priority, t.num${limit}`).all().map(todoFromRow),
    lapsedLeases: db.prepare(`${select} WHERE ${leaseLapsedSql()} ORDER BY t.lease_expires_at${limit}`).all(at).map(todoFromRow),
    monitors: listMonitors(db, { status: 'waiting', limit: options.limit }),
    failing: failingTodos(db, nowMs),
    heldOpen: goals.flatMap((g) =>
      openTurnSlots(db, g.id, nowMs)
        .filter((t) => !t.holds)
        .map((t) => ({ id: t.id, goalId: g.id, todoId: t.todoId, agent: t.agent, startedAt: t.startedAt })),
    ),
  };
  if (options.limit !== undefined) {
    const count = (sql: string, ...params: string[]) => Number(db.prepare(sql).get(...params)?.n ?? 0);
    const totals = {
      pendingGates: count(`SELECT count(*) AS n FROM gates WHERE status = 'pending'`),
      blocked: counts.size ? [...counts.values()].reduce((n, c) => n + c.blocked, 0) : 0,
      lapsedLeases: count(`SELECT count(*) AS n FROM todos t WHERE ${leaseLapsedSql()}`, at),
      monitors: count(`SELECT count(*) AS n FROM monitors WHERE status = 'waiting'`),
    };
    const more: NonNullable<StatusReport['more']> = {};
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) {
      const left = totals[key] - report[key].length;
      if (left > 0) more[key] = left;
    }
    if (Object.keys(more).length) report.more = more;
  }
  return report;
}

function failingTodos(db: SqliteDb, nowMs: number): FailingTodo[] {
  const at = iso(nowMs);
  return recentRetries(db, nowMs, { withinSeconds: FAILING_LOOKBACK_SECONDS, minFailures: FAILING_AFTER }).map(({ changed, ...r }) => ({
    ...r,
    // A change since (a person's note) lets it be taken at once.
    retryAt: changed || r.retryAt < at ? at : r.retryAt,
    title: String(db.prepare('SELECT title FROM todos WHERE id = ?').get(r.todoId)?.title ?? ''),
  }));
}

/**
 * Who left a paused goal paused, unless it was a person's own decision (a pause through VS Code or a terminal):
 * the goal's latest status-setting event, its actor, and whether it is a proposal (created paused, never started).
 */
function pausedFor(db: SqliteDb, goalId: string): { by: string; proposed: boolean } | null {
  const last = db
    .prepare(
      `SELECT kind, actor, actor_kind, data FROM events WHERE goal_id = ? AND kind IN ('goal.created', 'goal.status') ORDER BY seq DESC LIMIT 1`,
    )
    .get(goalId);
  if (!last) return null;
  const data = JSON.parse(String(last.data)) as { channel?: string };
  if (last.kind === 'goal.status' && last.actor_kind === 'human' && data.channel) return null;
  return { by: String(last.actor), proposed: last.kind === 'goal.created' };
}

import type { SqliteDb } from '../db/sqliteDb';
import type { Goal } from '../model';
import { iso } from '../time';
import { hasClaimable } from './ready';
import { leaseLiveSql } from './lookups';
import { nextMonitorMoment } from './monitors';
import { stuckSinceLastTurn } from './turns';

export interface QuotaState {
  goalId: string;
  turnsPerWindow: number;
  windowHours: number;
  spent: number;
  remaining: number;
  /** When the oldest slot spent in the window frees up (null when nothing is spent). */
  nextSlotAt: string | null;
  lastSpentAt: string | null;
  cooldownSeconds: number;
  cooldownUntil: string | null;
  liveClaims: number;
  /** Who holds those live claims (distinct names, sorted): a person's claim counts against the goal's concurrency too. */
  holders: string[];
  /** Open turns whose agent let go of its todo (shipped, released) while the host is still exiting: they hold a slot too. */
  windingDown: number;
  maxConcurrent: number;
}

/**
 * A turn holds one of its goal's concurrent slots from its start until it ends, not only while its todo is claimed:
 * an agent that shipped may still be exiting. A turn nobody finishes (its launcher gone, nothing recovering it) stops
 * holding the goal this long after its todo last changed, so one forgotten `turn start` cannot stall a goal.
 */
export const WIND_DOWN_SECONDS = 60;

export function quotaState(db: SqliteDb, goal: Goal, nowMs: number): QuotaState {
  const at = iso(nowMs);
  const windowStart = iso(nowMs - goal.policy.windowHours * 3600_000);
  const spentRow = db
    .prepare('SELECT count(*) AS n, min(at) AS oldest FROM quota_spends WHERE goal_id = ? AND at > ?')
    .get(goal.id, windowStart);
  const spent = Number(spentRow?.n ?? 0);
  const oldest = (spentRow?.oldest as string | null) ?? null;
  const last = (db.prepare('SELECT max(at) AS last FROM quota_spends WHERE goal_id = ?').get(goal.id)?.last as string | null) ?? null;
  const cooldownUntil = last && goal.policy.cooldownSeconds > 0 ? iso(Date.parse(last) + goal.policy.cooldownSeconds * 1000) : null;
  const claims = db
    .prepare(
      `SELECT t.owner AS owner, count(*) AS n FROM todos t WHERE t.goal_id = ? AND ${leaseLiveSql()} GROUP BY t.owner ORDER BY t.owner`,
    )
    .all(goal.id, at);
  const liveClaims = claims.reduce((n, row) => n + Number(row.n), 0);
  const winding = windingDownTurns(db, goal.id, nowMs);
  return {
    goalId: goal.id,
    turnsPerWindow: goal.policy.turnsPerWindow,
    windowHours: goal.policy.windowHours,
    spent,
    remaining: Math.max(0, goal.policy.turnsPerWindow - spent),
    nextSlotAt: oldest ? iso(Date.parse(oldest) + goal.policy.windowHours * 3600_000) : null,
    lastSpentAt: last,
    cooldownSeconds: goal.policy.cooldownSeconds,
    cooldownUntil: cooldownUntil && cooldownUntil > at ? cooldownUntil : null,
    liveClaims,
    holders: claims.map((row) => String(row.owner)),
    windingDown: winding.count,
    maxConcurrent: goal.policy.maxConcurrent,
  };
}

/** Open turns of the goal whose todo is no longer their agent's live claim, changed within WIND_DOWN_SECONDS. */
function windingDownTurns(db: SqliteDb, goalId: string, nowMs: number): { count: number; freeAt: string | null } {
  const row = db
    .prepare(
      `SELECT count(*) AS n, min(d.updated_at) AS oldest FROM turns t JOIN todos d ON d.id = t.todo_id
        WHERE t.goal_id = ? AND t.ended_at IS NULL AND d.updated_at > ?
          AND NOT (d.owner = t.agent AND ${leaseLiveSql('d')})`,
    )
    .get(goalId, iso(nowMs - WIND_DOWN_SECONDS * 1000), iso(nowMs));
  const oldest = (row?.oldest as string | null) ?? null;
  return { count: Number(row?.n ?? 0), freeAt: oldest ? iso(Date.parse(oldest) + WIND_DOWN_SECONDS * 1000) : null };
}

export const SHOULD_RUN_REASONS = [
  'ok',
  'goal_inactive',
  'no_ready_work',
  'gate_pending',
  'budget_exhausted',
  'concurrency_limit',
  'cooldown',
  'no_change',
] as const;
export type ShouldRunReason = (typeof SHOULD_RUN_REASONS)[number];

export interface ShouldRun {
  run: boolean;
  reason: ShouldRunReason;
  /** When the answer can next turn yes; null when only a human can unblock it. */
  nextWakeAt: string | null;
  remaining: number;
}

/**
 * Never spends. When several reasons hold, the first in SHOULD_RUN_REASONS order is given.
 * Callers that already computed the quota or the next claimable todo may pass them in.
 */
export function shouldRun(db: SqliteDb, goal: Goal, nowMs: number, known: { quota?: QuotaState; hasReadyWork?: boolean } = {}): ShouldRun {
  const quota = known.quota ?? quotaState(db, goal, nowMs);
  const at = iso(nowMs);
  const no = (reason: ShouldRunReason, nextWakeAt: string | null): ShouldRun => ({
    run: false,
    reason,
    nextWakeAt,
    remaining: quota.remaining,
  });
  if (goal.status !== 'active') return no('goal_inactive', null);
  if (!(known.hasReadyWork ?? hasClaimable(db, at, goal.id))) return no('no_ready_work', nextReadyMoment(db, goal.id, at));
  const goalGate = db.prepare(`SELECT 1 FROM gates WHERE goal_id = ? AND todo_id IS NULL AND status = 'pending' LIMIT 1`).get(goal.id);
  if (goalGate) return no('gate_pending', null);
  if (quota.remaining === 0) return no('budget_exhausted', goal.policy.turnsPerWindow === 0 ? null : quota.nextSlotAt);
  if (quota.liveClaims + quota.windingDown >= goal.policy.maxConcurrent) {
    const wakes = [earliestLeaseExpiry(db, goal.id, at), windingDownTurns(db, goal.id, nowMs).freeAt].filter(
      (t): t is string => t !== null,
    );
    return no('concurrency_limit', wakes.length ? (wakes.sort()[0] as string) : null);
  }
  if (quota.cooldownUntil) return no('cooldown', quota.cooldownUntil);
  if (stuckSinceLastTurn(db, goal.id, at)) return no('no_change', null);
  return { run: true, reason: 'ok', nextWakeAt: null, remaining: quota.remaining };
}

/**
 * When work of the goal can next become ready by itself: a live lease lapses, a monitor checks (or fires, or
 * expires), a recurring todo's next occurrence comes due. The earliest of these, or null.
 */
function nextReadyMoment(db: SqliteDb, goalId: string, at: string): string | null {
  const due = db.prepare(`SELECT min(ready_at) AS t FROM todos WHERE goal_id = ? AND status = 'open' AND ready_at > ?`).get(goalId, at)
    ?.t as string | null | undefined;
  const times = [earliestLeaseExpiry(db, goalId, at), nextMonitorMoment(db, goalId), due ?? null].filter((t): t is string => t !== null);
  return times.length ? (times.sort()[0] as string) : null;
}

/** A live lease that lapses makes its todo claimable again: the earliest such moment is a wake time. */
function earliestLeaseExpiry(db: SqliteDb, goalId: string, at: string): string | null {
  const row = db.prepare(`SELECT min(t.lease_expires_at) AS t FROM todos t WHERE t.goal_id = ? AND ${leaseLiveSql()}`).get(goalId, at);
  return (row?.t as string | null) ?? null;
}

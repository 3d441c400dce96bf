import type { SqliteDb } from '../db/sqliteDb';
import type { Gate, Goal } from '../model';
import { iso } from '../time';
import { leaseLapsedSql } from '../todos/todoQueries';
import { type Monitor, listMonitors } from '../monitors/monitorQueries';
import { type QuotaState, type ShouldRun, quotaState, shouldRun } from '../goals/quotaQueries';
import { openTurnSlots } from '../turns/turnSlots';
import { listGates } from '../gates/gateQueries';
import { getGoal } from '../goals/goalQueries';
import { isValidatedResult } from '../turns/turnQueries';
import { type RunnerSeen, recentRunners, runnerStopped } from '../turns/runners';
import { limitSql } from '../db/limitSql';

/** How many of a goal's latest finished turns readiness looks at for their validated share. */
export const RECENT_TURNS = 10;

/**
 * What the store says about whether a goal is ready to be left running (`loopx ready`, issue 44): one read, nothing
 * judged. runtime/goalReadiness.ts adds what only the machine knows (the host, a live runner) and judges each.
 */
export interface ReadinessFacts {
  goal: Goal;
  answer: ShouldRun;
  quota: QuotaState;
  pendingGates: Gate[];
  blockedTodos: { id: string; title: string }[];
  /** Monitors of the goal whose agent-set check waits for a person to allow it. */
  checksToAllow: Monitor[];
  /** Claimed todos whose lease lapsed: nobody is working on them, and nothing released them. */
  staleClaims: { id: string; owner: string }[];
  /** Todos that can still be worked on (open, claimed, blocked), and of them the recurring ones. */
  liveTodos: number;
  recurringTodos: number;
  /** The latest finished turns (up to RECENT_TURNS): how many, how many validated, and the host of the newest turn. */
  recentTurns: { finished: number; validated: number; lastHost: string | null };
  /** `loopx run`s seen in the last week that serve this goal and did not say they stopped. */
  runners: RunnerSeen[];
}

export function readinessFacts(db: SqliteDb, goalId: string, nowMs: number): ReadinessFacts {
  const goal = getGoal(db, goalId);
  const at = iso(nowMs);
  const quota = quotaState(db, goal, nowMs, openTurnSlots(db, goal.id, nowMs));
  const todos = db
    .prepare(`SELECT id, title, status, recurrence FROM todos WHERE goal_id = ? AND status IN ('open', 'claimed', 'blocked')`)
    .all(goal.id);
  const turns = db
    .prepare(`SELECT host, result_kind FROM turns WHERE goal_id = ? AND ended_at IS NOT NULL ORDER BY num DESC ${limitSql(RECENT_TURNS)}`)
    .all(goal.id);
  const lastHost = db.prepare('SELECT host FROM turns WHERE goal_id = ? ORDER BY num DESC LIMIT 1').get(goal.id)?.host;
  const weekAgo = iso(nowMs - 7 * 24 * 3600 * 1000);
  return {
    goal,
    answer: shouldRun(db, goal, nowMs, { quota }),
    quota,
    pendingGates: listGates(db, { pending: true, goalId: goal.id }),
    blockedTodos: todos.filter((t) => t.status === 'blocked').map((t) => ({ id: String(t.id), title: String(t.title) })),
    checksToAllow: listMonitors(db, { goalId: goal.id, status: 'waiting' }).filter((m) => m.approval === 'pending'),
    staleClaims: db
      .prepare(`SELECT t.id AS id, t.owner AS owner FROM todos t WHERE t.goal_id = ? AND ${leaseLapsedSql()} ORDER BY t.num`)
      .all(goal.id, at)
      .map((r) => ({ id: String(r.id), owner: String(r.owner) })),
    liveTodos: todos.length,
    recurringTodos: todos.filter((t) => t.recurrence !== null).length,
    recentTurns: {
      finished: turns.length,
      validated: turns.filter((t) => isValidatedResult(t.result_kind)).length,
      lastHost: typeof lastHost === 'string' ? lastHost : null,
    },
    runners: recentRunners(db, weekAgo).filter((r) => (r.goals.length === 0 || r.goals.includes(goal.id)) && !runnerStopped(db, r)),
  };
}

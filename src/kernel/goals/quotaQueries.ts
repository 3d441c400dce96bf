import type { SqliteDb } from '../db/sqliteDb';
import type { Goal } from '../model';
import { iso } from '../time';
import { type Retry, backingOff, retryAt } from '../turns/backoff';
import { claimableNow, firstClaimableId, leaseLiveSql } from '../todos/todoQueries';
import { reviewableIds } from '../todos/reviewQueries';
import { type Claimer, heldFrom } from '../todos/reviewHoldQueries';
import { nextMonitorMoment } from '../monitors/monitorQueries';
import { type OpenTurnSlot, openTurnSlots, todosWithOpenTurns } from '../turns/turnSlots';
import { limitSql } from '../db/limitSql';

export interface QuotaState {
  goalId: string;
  turnsPerWindow: number;
  windowHours: number;
  spent: number;
  /** Turns open now: each reserves one unit of budget from its start until it is finished (then spent, or freed). */
  reserved: number;
  /** What a new turn may still take: the budget less what is spent in the window and what open turns reserve. */
  remaining: number;
  /** When the oldest slot spent in the window frees up (null when nothing is spent). */
  nextSlotAt: string | null;
  lastSpentAt: string | null;
  cooldownSeconds: number;
  cooldownUntil: string | null;
  /** Live claims on the goal's todos, a person's included. */
  liveClaims: number;
  /** Who holds those (distinct names, sorted). */
  holders: string[];
  /**
   * Of those, the claims people took for themselves, and who: they work beside the agents, so these take none of
   * the goal's concurrent slots (a person working does not stop the agents); a turn a person starts for an agent does.
   */
  personClaims: number;
  personHolders: string[];
  /**
   * Open turns that take a concurrent slot though their agent no longer holds its todo: it shipped or released and
   * its host is still exiting, or its runner died and its agent may still run until the turn's deadline.
   */
  windingDown: number;
  maxConcurrent: number;
  /** What the window's turns used (every turn that ended in it, failed ones too: they cost as much) and the caps. */
  usage: WindowUsage;
}

export interface WindowUsage {
  /** Tokens in and out of the turns that ended in the window (unknown usage counts nothing). */
  tokens: number;
  /** US dollars of those turns whose cost is known. */
  dollars: number;
  tokensPerWindow: number | null;
  dollarsPerWindow: number | null;
  /** What a turn of this goal is likely to use: the mean of its last ESTIMATE_TURNS turns with known usage. */
  perTurn: { tokens: number; dollars: number | null; turns: number } | null;
  /** When the oldest turn counted leaves the window (null when none is counted). */
  nextFreesAt: string | null;
}

/** How many of a goal's latest turns with known usage its per-turn estimate averages. */
export const ESTIMATE_TURNS = 5;

/** The window's usage and a turn's likely cost; cheap when the goal has no caps (nothing is summed then). */
export function windowUsage(db: SqliteDb, goal: Goal, nowMs: number): WindowUsage {
  const { tokensPerWindow, dollarsPerWindow } = goal.policy;
  const windowStart = iso(nowMs - goal.policy.windowHours * 3600_000);
  const row = db
    .prepare(
      `SELECT coalesce(sum(input_tokens + output_tokens), 0) AS tokens, coalesce(sum(cost_usd), 0) AS dollars, min(ended_at) AS oldest
        FROM turns WHERE goal_id = ? AND ended_at > ? AND input_tokens IS NOT NULL`,
    )
    .get(goal.id, windowStart);
  const recent = db
    .prepare(
      `SELECT input_tokens + output_tokens AS tokens, cost_usd AS dollars FROM turns
        WHERE goal_id = ? AND input_tokens IS NOT NULL ORDER BY num DESC ${limitSql(ESTIMATE_TURNS)}`,
    )
    .all(goal.id);
  const priced = recent.filter((r) => r.dollars !== null);
  const oldest = (row?.oldest as string | null | undefined) ?? null;
  return {
    tokens: Number(row?.tokens ?? 0),
    dollars: Math.round(Number(row?.dollars ?? 0) * 1e6) / 1e6,
    tokensPerWindow,
    dollarsPerWindow,
    perTurn: recent.length
      ? {
          tokens: Math.round(recent.reduce((n, r) => n + Number(r.tokens), 0) / recent.length),
          dollars: priced.length ? priced.reduce((n, r) => n + Number(r.dollars), 0) / priced.length : null,
          turns: recent.length,
        }
      : null,
    nextFreesAt: oldest ? iso(Date.parse(oldest) + goal.policy.windowHours * 3600_000) : null,
  };
}

/**
 * Which cap the next turn would likely pass ('tokens' or 'dollars'), or null: what the window used, what the open
 * turns will likely use, and one more turn's estimate, against each cap. A cap already reached stops the next turn
 * even without an estimate.
 */
export function usageCapReached(usage: WindowUsage, openTurns: number): 'tokens' | 'dollars' | null {
  const ahead = openTurns + 1;
  const over = (used: number, perTurn: number, cap: number | null) => cap !== null && (used >= cap || used + ahead * perTurn > cap);
  if (over(usage.tokens, usage.perTurn?.tokens ?? 0, usage.tokensPerWindow)) return 'tokens';
  if (over(usage.dollars, usage.perTurn?.dollars ?? 0, usage.dollarsPerWindow)) return 'dollars';
  return null;
}

/**
 * 1 when the todo `t`'s live claim is a person's own: its last claim (or accepted hand-off) was made by a person, for
 * that person. An agent's claim under a person's name is still an agent's (actor_kind is the channel's).
 */
const PERSONS_OWN_CLAIM_SQL = `coalesce((SELECT e.actor_kind = 'human' AND e.actor = t.owner FROM events e
  WHERE e.todo_id = t.id AND e.kind IN ('todo.claimed', 'handoff.accepted') ORDER BY e.seq DESC LIMIT 1), 0)`;

export function quotaState(
  db: SqliteDb,
  goal: Goal,
  nowMs: number,
  slots: readonly OpenTurnSlot[] = openTurnSlots(db, goal.id, nowMs),
): QuotaState {
  const at = iso(nowMs);
  const { spent, oldest } = windowSpends(db, goal, nowMs);
  const last = (db.prepare('SELECT max(at) AS last FROM quota_spends WHERE goal_id = ?').get(goal.id)?.last as string | null) ?? null;
  const cooldownUntil = last && goal.policy.cooldownSeconds > 0 ? iso(Date.parse(last) + goal.policy.cooldownSeconds * 1000) : null;
  const claims = db
    .prepare(
      `SELECT t.owner AS owner, count(*) AS n, sum(${PERSONS_OWN_CLAIM_SQL}) AS persons
       FROM todos t WHERE t.goal_id = ? AND ${leaseLiveSql()} GROUP BY t.owner ORDER BY t.owner`,
    )
    .all(goal.id, at);
  const liveClaims = claims.reduce((n, row) => n + Number(row.n), 0);
  const persons = claims.filter((row) => Number(row.persons) > 0);
  const reserved = slots.filter((t) => !t.spent).length;
  return {
    goalId: goal.id,
    turnsPerWindow: goal.policy.turnsPerWindow,
    windowHours: goal.policy.windowHours,
    spent,
    reserved,
    remaining: Math.max(0, goal.policy.turnsPerWindow - spent - reserved),
    nextSlotAt: oldest ? iso(Date.parse(oldest) + goal.policy.windowHours * 3600_000) : null,
    lastSpentAt: last,
    cooldownSeconds: goal.policy.cooldownSeconds,
    cooldownUntil: cooldownUntil && cooldownUntil > at ? cooldownUntil : null,
    liveClaims,
    holders: claims.map((row) => String(row.owner)),
    personClaims: persons.reduce((n, row) => n + Number(row.persons), 0),
    personHolders: persons.map((row) => String(row.owner)),
    windingDown: slots.filter((t) => t.holds && !t.ownLiveClaim).length,
    maxConcurrent: goal.policy.maxConcurrent,
    usage: windowUsage(db, goal, nowMs),
  };
}

/**
 * How many more turns the goal's budget has room for, not counting `ownTurnId` (an open turn about to spend its own
 * reservation): the budget less the window's spends and the other open turns' reservations. Spending keeps it >= 0.
 */
export function budgetRoom(db: SqliteDb, goal: Goal, nowMs: number, ownTurnId?: string): number {
  // Only the spends and the open turns: the window's usage sums (quotaState's costliest part) are not needed here.
  const slots = openTurnSlots(db, goal.id, nowMs);
  const reserved = slots.filter((t) => !t.spent).length;
  const own = ownTurnId ? slots.filter((t) => !t.spent && t.id.toUpperCase() === ownTurnId.toUpperCase()).length : 0;
  return goal.policy.turnsPerWindow - windowSpends(db, goal, nowMs).spent - (reserved - own);
}

/** The turns spent in the goal's window, and when the oldest of them was spent (null when none was). */
export function windowSpends(db: SqliteDb, goal: Goal, nowMs: number): { spent: number; oldest: string | null } {
  const windowStart = iso(nowMs - goal.policy.windowHours * 3600_000);
  const row = db
    .prepare('SELECT count(*) AS n, min(at) AS oldest FROM quota_spends WHERE goal_id = ? AND at > ?')
    .get(goal.id, windowStart);
  return { spent: Number(row?.n ?? 0), oldest: (row?.oldest as string | null) ?? null };
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
  'setup_backoff',
] as const;
export type ShouldRunReason = (typeof SHOULD_RUN_REASONS)[number];

/**
 * What each should-run answer means for whoever waits on it, the one classification: `soon`, a no that turns yes by
 * itself shortly (a runner is not idle while it lasts); `person`, whether a person must act: `always`, only when no
 * wake time is known (`unless_wake`), or never (it is only blocked until something else changes). Read by turn start's
 * route (`routeFor`, turns/turns.ts), `loopx run`'s idleness and `quota should-run`'s help.
 */
export const SHOULD_RUN_CLASSES: Record<ShouldRunReason, { soon: boolean; person: 'always' | 'unless_wake' | 'never'; note?: string }> = {
  ok: { soon: true, person: 'never' },
  goal_inactive: { soon: false, person: 'always' },
  no_ready_work: { soon: false, person: 'never' },
  gate_pending: { soon: false, person: 'always' },
  budget_exhausted: { soon: false, person: 'never' },
  concurrency_limit: { soon: true, person: 'never' },
  cooldown: { soon: true, person: 'never' },
  no_change: { soon: false, person: 'unless_wake', note: 'every ready todo is backing off after a turn without progress' },
  setup_backoff: {
    soon: false,
    person: 'unless_wake',
    note: 'every ready todo waits for its worktree setup, which failed, to be tried again',
  },
};

/** A should-run answer that turns yes by itself soon (`SHOULD_RUN_CLASSES`): a runner serving it is not idle. */
export function runsSoon(answer: Pick<ShouldRun, 'reason'>): boolean {
  return SHOULD_RUN_CLASSES[answer.reason].soon;
}

export interface ShouldRun {
  run: boolean;
  reason: ShouldRunReason;
  /** When the answer can next turn yes; null when only a human can unblock it. */
  nextWakeAt: string | null;
  remaining: number;
  /** budget_exhausted: which budget (turns, tokens or dollars), with the window's usage and the estimate it used. */
  budget?: 'turns' | 'tokens' | 'dollars';
  usage?: WindowUsage;
  /** With `usage`: the window it counts over. */
  windowHours?: number;
  /** no_change: the first retry was brought forward to start inside its host's prompt-cache window (backoff.ts). */
  keepsCacheWarm?: boolean;
}

/** What a caller already knows for a plan: the goal's quota, and the todos whose worktree setup backs off (setupWaits). */
export interface PlanKnown {
  quota?: QuotaState;
  /**
   * Todos whose failed worktree setup may not run unattended yet, with when it may (`setupWaits` in
   * worktrees/setupBackoff.ts, read from the store's folder): the plan skips them. Left out for a person's own turn,
   * whose setup runs at once.
   */
  setupWaits?: ReadonlyMap<string, string>;
  /**
   * The plan is a review turn's, for this agent (todos/review.ts): the work is the goal's changes waiting for a review
   * (`reviewableIds`: in review, nobody reviewing, not the agent's own), first submitted first.
   */
  reviewer?: string;
  /**
   * Who an implementing turn claims for: a todo sent back from review that waits for its implementer (reviewHoldQueries.ts)
   * is left out unless this is it. Unknown (should-run's own answer): every todo counts.
   */
  claimer?: Claimer;
  /**
   * The goal's first ready todo in claim order with none left out, or null when none is ready: what a report that
   * shows it has read already (status, goal show). Used when the plan leaves nothing out (no turn open on a todo of
   * the goal, no claimer), which spares the walk of the ready todos a second time.
   */
  firstReady?: string | null;
}

/** should-run's answer and the todo a turn start takes when it says yes. */
export interface TurnPlan {
  answer: ShouldRun;
  todoId: string | null;
}

/**
 * Never spends. When several reasons hold, the first in SHOULD_RUN_REASONS order is given.
 * Callers that already computed the quota may pass it in.
 */
export function shouldRun(db: SqliteDb, goal: Goal, nowMs: number, known: PlanKnown = {}): ShouldRun {
  return planTurn(db, goal, nowMs, known).answer;
}

/**
 * should-run, and which todo a turn start takes: the first ready one in claim order that has no turn open on it (one
 * open turn per todo) and is not backing off after a turn on it made no progress (backoff.ts). `no_change` means
 * every ready todo is backing off; its wake time is the first retry.
 */
export function planTurn(db: SqliteDb, goal: Goal, nowMs: number, known: PlanKnown = {}): TurnPlan {
  const slots = openTurnSlots(db, goal.id, nowMs);
  const quota = known.quota ?? quotaState(db, goal, nowMs, slots);
  const at = iso(nowMs);
  const no = (reason: ShouldRunReason, nextWakeAt: string | null): TurnPlan => ({
    answer: { run: false, reason, nextWakeAt, remaining: quota.remaining },
    todoId: null,
  });
  if (goal.status !== 'active') return no('goal_inactive', null);
  const held = known.claimer && known.reviewer === undefined ? heldFrom(db, goal.id, at, known.claimer) : [];
  const busy = [...todosWithOpenTurns(slots), ...held.map((h) => h.todoId)];
  const first =
    known.reviewer !== undefined
      ? (reviewableIds(db, goal.id, at, known.reviewer, busy)[0] ?? null)
      : busy.length === 0 && known.firstReady !== undefined
        ? known.firstReady
        : firstClaimableId(db, at, goal.id, busy);
  // A review waits for a change to be submitted, which no clock brings.
  if (first === null)
    return no(
      'no_ready_work',
      known.reviewer === undefined ? earliest([nextReadyMoment(db, goal.id, at), ...held.map((h) => h.until)]) : null,
    );
  const goalGate = db.prepare(`SELECT 1 FROM gates WHERE goal_id = ? AND todo_id IS NULL AND status = 'pending' LIMIT 1`).get(goal.id);
  if (goalGate) return no('gate_pending', null);
  if (quota.remaining === 0) {
    const answer = no('budget_exhausted', goal.policy.turnsPerWindow === 0 ? null : quota.nextSlotAt);
    return { ...answer, answer: { ...answer.answer, budget: 'turns' } };
  }
  const cap = usageCapReached(quota.usage, quota.reserved);
  if (cap) {
    const answer = no('budget_exhausted', quota.usage.nextFreesAt);
    return { ...answer, answer: { ...answer.answer, budget: cap, usage: quota.usage, windowHours: goal.policy.windowHours } };
  }
  if (quota.liveClaims - quota.personClaims + quota.windingDown >= goal.policy.maxConcurrent) {
    const frees = slots.filter((t) => t.holds && !t.ownLiveClaim).map((t) => t.holdsUntil);
    const wakes = [earliestLeaseExpiry(db, goal.id, at), ...frees].filter((t): t is string => t !== null);
    return no('concurrency_limit', wakes.length ? (wakes.sort()[0] as string) : null);
  }
  if (quota.cooldownUntil) return no('cooldown', quota.cooldownUntil);
  if (known.reviewer !== undefined)
    return { answer: { run: true, reason: 'ok', nextWakeAt: null, remaining: quota.remaining }, todoId: first };
  const setups = known.setupWaits ?? new Map<string, string>();
  // The first ready todo is usually not backing off: one look at it; the goal's whole list only when it is.
  if (!setups.has(first) && retryAt(db, first, nowMs) === null)
    return { answer: { run: true, reason: 'ok', nextWakeAt: null, remaining: quota.remaining }, todoId: first };
  const waiting = backingOff(db, goal.id, nowMs);
  const other = firstClaimableId(db, at, goal.id, [...busy, ...waiting.keys(), ...setups.keys()]);
  if (other !== null) return { answer: { run: true, reason: 'ok', nextWakeAt: null, remaining: quota.remaining }, todoId: other };
  // Every ready todo waits (after a turn on it made no progress, or its worktree setup failed): wake at the first
  // retry of one that is ready, and say which wait that is.
  // The earliest by plain comparison (times are ISO text in UTC): localeCompare would set up ICU's collator, 12 ms.
  const retry = [...waiting.values()]
    .filter((r) => claimableNow(db, at, r.todoId))
    .reduce<Retry | undefined>((soonest, r) => (soonest === undefined || r.retryAt < soonest.retryAt ? r : soonest), undefined);
  const turns = retry?.retryAt ?? null;
  const setup =
    [...setups]
      .filter(([id]) => claimableNow(db, at, id))
      .map(([, when]) => when)
      .sort()[0] ?? null;
  if (setup !== null && (turns === null || setup < turns)) return no('setup_backoff', setup);
  const answer = no('no_change', turns);
  return retry?.keepsCacheWarm ? { ...answer, answer: { ...answer.answer, keepsCacheWarm: true } } : answer;
}

/** The earliest of some moments (ISO strings compare in time order), or null when none is known. */
function earliest(moments: readonly (string | null)[]): string | null {
  return moments.filter((m): m is string => m !== null).sort()[0] ?? null;
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

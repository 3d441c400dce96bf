import type { SqliteDb } from '../db/sqliteDb';
import type { Turn } from '../turns/turnQueries';

/** What a goal's turns of one role took: the implementers' work, or the reviews of it (peer review). */
export interface RoleTotals {
  turns: number;
  /** Turns that spent the goal's quota (validated ones). */
  spent: number;
  /** Wall time of the ended turns. */
  seconds: number;
  /** Tokens in and out, where the usage is known. */
  tokens: number;
  /** Dollars, where the cost is known. */
  costUsd: number;
}

/** A goal's turns that ended after `since` (ISO; null: all of them), by role: summed in one query. */
export function roleFigures(db: SqliteDb, goalId: string, since: string | null): Record<Turn['role'], RoleTotals> {
  const totals: Record<Turn['role'], RoleTotals> = {
    implement: { turns: 0, spent: 0, seconds: 0, tokens: 0, costUsd: 0 },
    review: { turns: 0, spent: 0, seconds: 0, tokens: 0, costUsd: 0 },
  };
  const rows = db
    .prepare(
      `SELECT role, count(*) AS turns, sum(spent) AS spent,
              sum(CASE WHEN ended_at IS NULL THEN 0 ELSE (julianday(ended_at) - julianday(started_at)) * 86400 END) AS seconds,
              sum(coalesce(input_tokens, 0) + coalesce(output_tokens, 0)) AS tokens, sum(coalesce(cost_usd, 0)) AS cost
         FROM turns WHERE goal_id = ? ${since ? 'AND ended_at > ?' : ''} GROUP BY role`,
    )
    .all(...(since ? [goalId, since] : [goalId]));
  for (const r of rows) {
    const role = r.role === 'review' ? 'review' : 'implement';
    totals[role] = {
      turns: Number(r.turns),
      spent: Number(r.spent ?? 0),
      seconds: Math.round(Number(r.seconds ?? 0)),
      tokens: Number(r.tokens ?? 0),
      costUsd: Math.round(Number(r.cost ?? 0) * 1e6) / 1e6,
    };
  }
  return totals;
}

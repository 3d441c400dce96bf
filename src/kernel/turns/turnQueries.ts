import type { SqliteDb, Row } from '../db/sqliteDb';
import { NotFoundError } from '../errors';
import { rowReader } from '../rowReader';
import type { TurnUsage } from './usage/usage';
import { limitSql } from '../db/limitSql';

export const RESULT_KINDS = [
  'validated_progress',
  'validated_completion',
  'user_action_required',
  'wait',
  'host_failure',
  'validation_failed',
] as const;
export type ResultKind = (typeof RESULT_KINDS)[number];
/** The results of a turn that did something loopx could check (evidence, a ship): it spends quota and ends a back-off. */
export const VALIDATED_RESULTS = ['validated_progress', 'validated_completion'] as const satisfies readonly ResultKind[];
/** Whether a turn's result is validated (`VALIDATED_RESULTS`): the one spelling of "a validated turn". */
export function isValidatedResult(resultKind: unknown): boolean {
  return (VALIDATED_RESULTS as readonly unknown[]).includes(resultKind);
}
/** `VALIDATED_RESULTS` as a SQL list, for a query that keeps them out. */
export const VALIDATED_RESULTS_SQL = VALIDATED_RESULTS.map((r) => `'${r}'`).join(', ');
export const ROUTES = ['ready_for_host', 'wait', 'user_action_required', 'blocked'] as const;
export type Route = (typeof ROUTES)[number];

export const TURN_ROLES = ['implement', 'review'] as const;

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
    /** A runner's turn: when it is surely over (its --turn-limit and the grace to end it); null for others. */
    deadlineAt: r.maybeText('deadline_at'),
    /** The todo's own work, or a review of its change (todos/review.ts). */
    role: r.oneOf('role', TURN_ROLES),
    /** What it used; null when unknown (still running, or its host reported nothing usable). */
    usage: usageFromRow(r, row),
  };
};
export type Turn = ReturnType<typeof turnFromRow>;

function usageFromRow(r: ReturnType<typeof rowReader>, row: Row): TurnUsage | null {
  if (row.input_tokens === null || row.input_tokens === undefined) return null;
  const cost = row.cost_usd === null ? null : r.num('cost_usd');
  return {
    inputTokens: r.int('input_tokens'),
    outputTokens: r.int('output_tokens'),
    cachedTokens: r.int('cached_tokens'),
    ...(row.cache_write_tokens ? { cacheWriteTokens: r.int('cache_write_tokens') } : {}),
    costUsd: cost,
    costSource: cost === null ? null : r.oneOf('cost_source', ['host', 'prices'] as const),
    model: r.maybeText('usage_model'),
  };
}

export function getTurn(db: SqliteDb, id: string): Turn {
  const row = db.prepare('SELECT * FROM turns WHERE id = ?').get(id);
  if (!row) throw new NotFoundError('turn', id);
  return turnFromRow(row);
}

/**
 * Turns newest first (of a todo, of a goal, or all): a page (`limit` after `offset`), or every one without a limit;
 * `more` counts what the page left out.
 */
export function listTurns(
  db: SqliteDb,
  filter: { goalId?: string; todoId?: string; limit?: number; offset?: number } = {},
): { turns: Turn[]; more: number } {
  const where = filter.todoId ? 'WHERE todo_id = ?' : filter.goalId ? 'WHERE goal_id = ?' : '';
  const args = filter.todoId ? [filter.todoId] : filter.goalId ? [filter.goalId] : [];
  const limit = filter.limit === undefined ? -1 : Math.max(1, Math.floor(filter.limit));
  const offset = Math.max(0, Math.floor(filter.offset ?? 0));
  const turns = db
    .prepare(`SELECT * FROM turns ${where} ORDER BY num DESC ${limitSql(limit, offset)}`)
    .all(...args)
    .map(turnFromRow);
  if (limit === -1 || turns.length < limit) return { turns, more: 0 };
  const total = Number(db.prepare(`SELECT count(*) AS n FROM turns ${where}`).get(...args)?.n ?? 0);
  return { turns, more: Math.max(0, total - offset - turns.length) };
}

export function countTurns(db: SqliteDb): number {
  return Number(db.prepare('SELECT count(*) AS n FROM turns').get()?.n ?? 0);
}

/** Turns started and not yet finished, oldest first. */
export function openTurns(db: SqliteDb): Turn[] {
  return db.prepare('SELECT * FROM turns WHERE ended_at IS NULL ORDER BY num').all().map(turnFromRow);
}

/** Which of these turn numbers are finished turns (the rest are open or unknown to the store). */
export function finishedTurnNums(db: SqliteDb, nums: readonly number[]): Set<number> {
  return new Set(
    db
      .prepare('SELECT num FROM turns WHERE num IN (SELECT value FROM json_each(?)) AND ended_at IS NOT NULL')
      .all(JSON.stringify(nums))
      .map((r) => Number(r.num)),
  );
}

import type { SqliteDb } from '../db/sqliteDb';
import { cacheSavedAt, priceFor } from '../prices/modelPrices';
import { priceTable } from '../prices/priceTable';

/** What a goal's turns read from the prompt cache, and what that saved (issue 44's cost views). */
export interface CacheFigures {
  /** The turns counted: those whose usage is known. */
  turns: number;
  inputTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  /** The share of input read from the cache (0 to 1); null when no input is known. */
  hitShare: number | null;
  /**
   * Dollars the cache saved, at the price table's rates for each turn's model: the reads at the input price less the
   * cached one, less what the writes cost above input. Null when no counted turn names a priced model.
   */
  savedUsd: number | null;
}

/**
 * The cache figures of a goal's turns that ended after `since` (ISO; null: all of them). Summed per model in SQL and
 * priced per model: the savings are linear in the tokens, so a model's totals price the same as its turns one by one.
 */
export function cacheFigures(db: SqliteDb, goalId: string, since: string | null): CacheFigures {
  const rows = db
    .prepare(
      `SELECT usage_model AS model, count(*) AS turns, sum(input_tokens) AS input, sum(cached_tokens) AS cached,
              sum(coalesce(cache_write_tokens, 0)) AS writes
         FROM turns WHERE goal_id = ? AND input_tokens IS NOT NULL ${since ? 'AND ended_at > ?' : ''}
        GROUP BY usage_model`,
    )
    .all(...(since ? [goalId, since] : [goalId]));
  const table = rows.length ? priceTable(db) : {};
  const figures: CacheFigures = { turns: 0, inputTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, hitShare: null, savedUsd: null };
  for (const row of rows) {
    const cachedTokens = Number(row.cached);
    const cacheWriteTokens = Number(row.writes);
    figures.turns += Number(row.turns);
    figures.inputTokens += Number(row.input);
    figures.cachedTokens += cachedTokens;
    figures.cacheWriteTokens += cacheWriteTokens;
    const found = priceFor(typeof row.model === 'string' ? row.model : null, table);
    if (found) figures.savedUsd = (figures.savedUsd ?? 0) + cacheSavedAt({ cachedTokens, cacheWriteTokens }, found.price);
  }
  if (figures.inputTokens > 0) figures.hitShare = figures.cachedTokens / figures.inputTokens;
  if (figures.savedUsd !== null) figures.savedUsd = Math.round(figures.savedUsd * 1e6) / 1e6;
  return figures;
}

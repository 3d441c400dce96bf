import { DEFAULT_PRICES, type PriceTable, costAt, priceFor } from '../../prices/modelPrices';

/**
 * What a turn used: tokens in, out and cached, and what it cost. One shape for every host, recorded on the turn
 * when it finishes (whether or not it wrote back: a failed turn still cost money).
 */
export interface TurnUsage {
  /** Every input token the model read, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  /** The part of inputTokens served from the host's prompt cache (billed lower). */
  cachedTokens: number;
  /**
   * The part of inputTokens the host wrote to its prompt cache (Anthropic bills it above the input price), when it
   * said and there were any: absent otherwise (as in every turn loopx recorded before it counted them).
   */
  cacheWriteTokens?: number;
  /** In US dollars; null when neither the host nor the price table says. */
  costUsd: number | null;
  /** Where the cost came from: the host's own report, or the price table (prices.ts). */
  costSource: 'host' | 'prices' | null;
  /** The model the host named, when it did. */
  model: string | null;
}

/** Past these a report is taken for garbage, not a turn: no single turn reads a billion tokens or costs $10,000. */
export const ABSURD_TOKENS = 1_000_000_000;
export const ABSURD_COST_USD = 10_000;

export interface CheckedUsage {
  /** null: unknown (missing, or every number was unusable). */
  usage: TurnUsage | null;
  /** Why a number was dropped, in words for the turn's log and the CLI's warnings. */
  warnings: string[];
}

const TOKEN_FIELDS = ['inputTokens', 'outputTokens', 'cachedTokens', 'cacheWriteTokens'] as const;

/** A value as a report gave it: a non-finite number as itself (JSON.stringify would say null). */
const shown = (value: unknown) => (typeof value === 'number' ? String(value) : JSON.stringify(value));

/** What is wrong with a token count, or null when it is a usable one. */
function tokenProblem(value: unknown): string | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'is not a number of tokens';
  if (!Number.isInteger(value) || value < 0) return 'is not a whole number of tokens';
  return value > ABSURD_TOKENS ? 'is more than any turn reads' : null;
}

/**
 * Validates a usage report from anywhere (a host's output, `turn finish --usage`): bad data is recorded as unknown
 * with a warning, never an error, so it can never break a turn. A negative, fractional, non-finite or absurd token
 * count makes the whole report unknown: recorded as 0 it would make the turn look free and pull the goal's per-turn
 * estimate down, so token caps would undercount. A bad cost alone leaves the cost unknown (priced from the table when
 * it can be). A missing field counts 0; a report without one usable count is unknown.
 */
export function checkUsage(raw: unknown): CheckedUsage {
  const warnings: string[] = [];
  if (raw === undefined || raw === null) return { usage: null, warnings };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return { usage: null, warnings: ['the usage report is not an object; recorded as unknown'] };
  }
  const input = raw as Record<string, unknown>;
  const tokens: Record<(typeof TOKEN_FIELDS)[number], number | null> = {
    inputTokens: null,
    outputTokens: null,
    cachedTokens: null,
    cacheWriteTokens: null,
  };
  let unusable = false;
  for (const field of TOKEN_FIELDS) {
    const value = input[field];
    if (value === undefined || value === null) continue;
    const why = tokenProblem(value);
    if (why) {
      warnings.push(`${field} ${shown(value)} ${why}; the turn's usage is recorded as unknown`);
      unusable = true;
    } else tokens[field] = value as number;
  }
  let costUsd: number | null = null;
  if (input.costUsd !== undefined && input.costUsd !== null) {
    const cost = input.costUsd;
    if (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0)
      warnings.push(`costUsd ${shown(cost)} is not a price; recorded as unknown`);
    else if (cost > ABSURD_COST_USD) warnings.push(`costUsd ${cost} is more than any turn costs; recorded as unknown`);
    else costUsd = cost;
  }
  if (unusable) return { usage: null, warnings };
  if (tokens.inputTokens === null && tokens.outputTokens === null && costUsd === null) {
    if (warnings.length === 0) warnings.push('the usage report has no token counts; recorded as unknown');
    return { usage: null, warnings };
  }
  const inputTokens = tokens.inputTokens ?? 0;
  let cachedTokens = tokens.cachedTokens ?? 0;
  if (cachedTokens > inputTokens) {
    warnings.push(`cachedTokens ${cachedTokens} is more than inputTokens ${inputTokens}; cached recorded as 0`);
    cachedTokens = 0;
  }
  let cacheWriteTokens = tokens.cacheWriteTokens ?? 0;
  if (cacheWriteTokens > inputTokens - cachedTokens) {
    warnings.push(
      `cacheWriteTokens ${cacheWriteTokens} is more than the input not read from the cache (${inputTokens - cachedTokens}); recorded as 0`,
    );
    cacheWriteTokens = 0;
  }
  const model = typeof input.model === 'string' && input.model.trim() ? input.model.trim().slice(0, 200) : null;
  const source = input.costSource === 'host' || input.costSource === 'prices' ? input.costSource : 'host';
  return {
    usage: {
      inputTokens,
      outputTokens: tokens.outputTokens ?? 0,
      cachedTokens,
      ...(cacheWriteTokens > 0 ? { cacheWriteTokens } : {}),
      costUsd,
      costSource: costUsd === null ? null : source,
      model,
    },
    warnings,
  };
}

/** Adds two reports (a turn whose host reported twice, a window's total). */
export function addUsage(a: TurnUsage | null, b: TurnUsage | null): TurnUsage | null {
  if (!a) return b;
  if (!b) return a;
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    ...(a.cacheWriteTokens || b.cacheWriteTokens ? { cacheWriteTokens: (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0) } : {}),
    costUsd: a.costUsd === null || b.costUsd === null ? (a.costUsd ?? b.costUsd) : a.costUsd + b.costUsd,
    costSource: a.costSource ?? b.costSource,
    model: a.model ?? b.model,
  };
}

/**
 * The usage with a cost: the host's own when it reported one; else computed from the table (cachedTokens at the
 * cached rate, cacheWriteTokens at the cache-write rate, the rest of the input at the input rate); else unchanged
 * (cost unknown).
 */
export function priced(usage: TurnUsage, table: PriceTable = DEFAULT_PRICES): TurnUsage {
  if (usage.costUsd !== null) return usage;
  const found = priceFor(usage.model, table);
  if (!found) return usage;
  const cost = costAt(usage, found.price);
  return { ...usage, costUsd: Math.round(cost * 1e6) / 1e6, costSource: 'prices' };
}

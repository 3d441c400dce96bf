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

const TOKEN_FIELDS = ['inputTokens', 'outputTokens', 'cachedTokens'] as const;

/**
 * Validates a usage report from anywhere (a host's output, `turn finish --usage`): a missing, negative, fractional
 * or absurd number is dropped with a warning, never an error, so bad usage data can never break a turn. A report
 * without one usable token count is unknown.
 */
export function checkUsage(raw: unknown): CheckedUsage {
  const warnings: string[] = [];
  if (raw === undefined || raw === null) return { usage: null, warnings };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return { usage: null, warnings: ['the usage report is not an object; recorded as unknown'] };
  }
  const input = raw as Record<string, unknown>;
  const tokens: Record<(typeof TOKEN_FIELDS)[number], number | null> = { inputTokens: null, outputTokens: null, cachedTokens: null };
  for (const field of TOKEN_FIELDS) {
    const value = input[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      warnings.push(`${field} ${JSON.stringify(value)} is not a whole number of tokens; recorded as unknown`);
    } else if (value > ABSURD_TOKENS) {
      warnings.push(`${field} ${value} is more than any turn reads; recorded as unknown`);
    } else tokens[field] = value;
  }
  let costUsd: number | null = null;
  if (input.costUsd !== undefined && input.costUsd !== null) {
    const cost = input.costUsd;
    if (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0)
      warnings.push(`costUsd ${JSON.stringify(cost)} is not a price; recorded as unknown`);
    else if (cost > ABSURD_COST_USD) warnings.push(`costUsd ${cost} is more than any turn costs; recorded as unknown`);
    else costUsd = cost;
  }
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
  const model = typeof input.model === 'string' && input.model.trim() ? input.model.trim().slice(0, 200) : null;
  const source = input.costSource === 'host' || input.costSource === 'prices' ? input.costSource : 'host';
  return {
    usage: {
      inputTokens,
      outputTokens: tokens.outputTokens ?? 0,
      cachedTokens,
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
    costUsd: a.costUsd === null || b.costUsd === null ? (a.costUsd ?? b.costUsd) : a.costUsd + b.costUsd,
    costSource: a.costSource ?? b.costSource,
    model: a.model ?? b.model,
  };
}

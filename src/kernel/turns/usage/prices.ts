import { type TurnUsage } from './usage';

/** A model's list price in US dollars per million tokens, with where and when it was read. */
export interface ModelPrice {
  input: number;
  /** Input served from the prompt cache. */
  cachedInput: number;
  output: number;
  /** The page the figures were read from. */
  source: string;
  /** When they were read (YYYY-MM-DD): prices change; a person updates the table (`.loopx/prices.json`). */
  asOf: string;
}

export type PriceTable = Record<string, ModelPrice>;

const OPENAI = 'https://openai.com/api/pricing/';
const GPT_6_2_SOL = 'https://developers.openai.com/api/docs/models/gpt-6.2-sol';
const ANTHROPIC = 'https://www.anthropic.com/pricing#api';

/**
 * List prices for the models the default hosts run. Claude Code reports each turn's cost itself, so these matter
 * mostly for Codex, whose output carries tokens but no cost. A model is matched by its name or the longest entry its
 * name starts with ("gpt-5-codex" before "gpt-5"); a person's `.loopx/prices.json` (the same shape) adds to and
 * overrides these.
 */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10, source: OPENAI, asOf: '2025-08-07' },
  'gpt-5-codex': { input: 1.25, cachedInput: 0.125, output: 10, source: OPENAI, asOf: '2025-09-15' },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2, source: OPENAI, asOf: '2025-08-07' },
  'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4, source: OPENAI, asOf: '2025-08-07' },
  // Codex 0.171.0's default model (CODEX_DEFAULT_MODEL). Standard rates up to 272K input tokens a request (longer
  // requests cost more; Fast mode twice): a turn's usage does not say how its requests were split, so these apply.
  'gpt-6.2-sol': { input: 2, cachedInput: 0.1, output: 10, source: GPT_6_2_SOL, asOf: '2026-12-01' },
  'claude-opus-4': { input: 15, cachedInput: 1.5, output: 75, source: ANTHROPIC, asOf: '2025-08-05' },
  'claude-sonnet-4': { input: 3, cachedInput: 0.3, output: 15, source: ANTHROPIC, asOf: '2025-08-05' },
  'claude-3-5-haiku': { input: 0.8, cachedInput: 0.08, output: 4, source: ANTHROPIC, asOf: '2025-08-05' },
};

/**
 * The price entry for a model: its own name, else the longest entry its name starts with followed by a dash (a dated
 * or sized variant: "gpt-5-2025-08-07" is gpt-5; "gpt-5.5" is another model, not gpt-5).
 */
export function priceFor(model: string | null, table: PriceTable = DEFAULT_PRICES): { name: string; price: ModelPrice } | undefined {
  if (!model) return undefined;
  const name = model.toLowerCase().replace(/\[.*\]$/, '');
  if (table[name]) return { name, price: table[name] };
  const prefix = Object.keys(table)
    .filter((key) => name.startsWith(`${key}-`))
    .sort((a, b) => b.length - a.length)[0];
  return prefix ? { name: prefix, price: table[prefix] as ModelPrice } : undefined;
}

/**
 * The usage with a cost: the host's own when it reported one; else computed from the table (cachedTokens at the
 * cached rate, the rest of the input at the input rate); else unchanged (cost unknown).
 */
export function priced(usage: TurnUsage, table: PriceTable = DEFAULT_PRICES): TurnUsage {
  if (usage.costUsd !== null) return usage;
  const found = priceFor(usage.model, table);
  if (!found) return usage;
  const { price } = found;
  const fresh = usage.inputTokens - usage.cachedTokens;
  const cost = (fresh * price.input + usage.cachedTokens * price.cachedInput + usage.outputTokens * price.output) / 1_000_000;
  return { ...usage, costUsd: Math.round(cost * 1e6) / 1e6, costSource: 'prices' };
}

/**
 * A person's price table (`.loopx/prices.json`), checked: every entry needs the three prices as numbers ≥ 0, and
 * `source`/`asOf` may be left out. Returns the table merged over the defaults, and what was wrong in words.
 */
export function mergePrices(text: string | undefined): { table: PriceTable; problems: string[] } {
  if (text === undefined) return { table: DEFAULT_PRICES, problems: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { table: DEFAULT_PRICES, problems: [`prices.json is not JSON (${(error as Error).message}); the built-in prices are used`] };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { table: DEFAULT_PRICES, problems: ['prices.json should map model names to prices; the built-in prices are used'] };
  }
  const table: PriceTable = { ...DEFAULT_PRICES };
  const problems: string[] = [];
  for (const [model, entry] of Object.entries(parsed as Record<string, unknown>)) {
    const e = (entry ?? {}) as Record<string, unknown>;
    const numbers = ['input', 'cachedInput', 'output'].map((k) => e[k]);
    if (!numbers.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0)) {
      problems.push(`prices.json: ${model} needs input, cachedInput and output in dollars per million tokens; skipped`);
      continue;
    }
    const [input, cachedInput, output] = numbers as number[];
    table[model.toLowerCase()] = {
      input: input as number,
      cachedInput: cachedInput as number,
      output: output as number,
      source: typeof e.source === 'string' ? e.source : 'prices.json',
      asOf: typeof e.asOf === 'string' ? e.asOf : 'unknown',
    };
  }
  return { table, problems };
}

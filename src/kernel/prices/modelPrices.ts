import { hostileChar } from '../validate';

/** A model's list price in US dollars per million tokens, with where and when it was read. */
export interface ModelPrice {
  input: number;
  /** Input served from the prompt cache. */
  cachedInput: number;
  /** Input written to the prompt cache, when it costs other than input (Anthropic's 5-minute cache: 1.25x input). */
  cacheWrite?: number;
  output: number;
  /** The page the figures were read from. */
  source: string;
  /** When they were read (YYYY-MM-DD): prices change; a person updates the table (`loopx prices set`). */
  asOf: string;
}

export type PriceTable = Record<string, ModelPrice>;

const OPENAI = 'https://openai.com/api/pricing/';
const GPT_6_2_SOL = 'https://developers.openai.com/api/docs/models/gpt-6.2-sol';
const ANTHROPIC = 'https://www.anthropic.com/pricing#api';

/**
 * List prices for the models the default hosts run. Claude Code reports each turn's cost itself, so these matter
 * mostly for Codex, whose output carries tokens but no cost. A model is matched by its name or the longest entry its
 * name starts with ("gpt-5-codex" before "gpt-5"). A person's prices, recorded in the store (`loopx prices set`,
 * src/kernel/prices/), add to and override these; a file in the workspace never does.
 */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10, source: OPENAI, asOf: '2025-08-07' },
  'gpt-5-codex': { input: 1.25, cachedInput: 0.125, output: 10, source: OPENAI, asOf: '2025-09-15' },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2, source: OPENAI, asOf: '2025-08-07' },
  'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4, source: OPENAI, asOf: '2025-08-07' },
  // Codex 0.171.0's default model (CODEX_DEFAULT_MODEL). Standard rates up to 272K input tokens a request (longer
  // requests cost more; Fast mode twice): a turn's usage does not say how its requests were split, so these apply.
  'gpt-6.2-sol': { input: 2, cachedInput: 0.1, output: 10, source: GPT_6_2_SOL, asOf: '2026-12-01' },
  // Cache writes at the 5-minute cache's rate (what Claude Code asks for); a person on the 1-hour cache sets 2x input.
  'claude-opus-4': { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75, source: ANTHROPIC, asOf: '2025-08-05' },
  'claude-sonnet-4': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, source: ANTHROPIC, asOf: '2025-08-05' },
  'claude-3-5-haiku': { input: 0.8, cachedInput: 0.08, cacheWrite: 1, output: 4, source: ANTHROPIC, asOf: '2025-08-05' },
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

/** A model name as the table keys it: lowercase, no spaces (a host's `[1m]`-style suffix is matched away by priceFor). */
const MODEL_NAME = /^[a-z0-9][a-z0-9._:/@+-]{0,99}$/;
/** The page a price was read from, as a person may name it. */
const SOURCE_MAX = 500;
/** When a price was read: a calendar date. */
const AS_OF = /^\d{4}-\d{2}-\d{2}$/;

/** A person's price for one model as the kernel records it (`price.set`): what `checkPrice` returns. */
export interface PriceEntry extends ModelPrice {
  model: string;
}

/**
 * The one check of a price a person gives (`loopx prices set`, VS Code's Set Model Price…, each entry `loopx prices
 * import` reads from an old `.loopx/prices.json`): a model name, the three prices as numbers ≥ 0 in dollars per
 * million tokens (and, optionally, a fourth for writing the prompt cache), an optional source (the page) and asOf (a date; `today` when left out). Returns the entry, or what
 * is wrong in words.
 */
export function checkPrice(model: unknown, entry: Record<string, unknown>, today: string): PriceEntry | string {
  const name = typeof model === 'string' ? model.trim().toLowerCase() : '';
  if (!MODEL_NAME.test(name))
    return `${JSON.stringify(model)} is not a model name (1-100 letters, digits, ".", "_", ":", "/", "@", "+" or "-")`;
  const numbers = (['input', 'cachedInput', 'output'] as const).map((k) => entry[k]);
  if (!numbers.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0))
    return `${name} needs input, cachedInput and output as numbers ≥ 0, in dollars per million tokens`;
  const source = entry.source === undefined || entry.source === null ? '' : entry.source;
  if (typeof source !== 'string' || source.length > SOURCE_MAX || /[\n\t]/.test(source) || hostileChar(source))
    return `${name}: the source should be one line of at most ${SOURCE_MAX} characters (the page the prices were read from)`;
  const asOf = entry.asOf === undefined || entry.asOf === null || entry.asOf === '' ? today : entry.asOf;
  if (typeof asOf !== 'string' || !AS_OF.test(asOf) || Number.isNaN(Date.parse(asOf)))
    return `${name}: asOf should be the date the prices were read, as YYYY-MM-DD`;
  const cacheWrite = entry.cacheWrite;
  if (
    cacheWrite !== undefined &&
    cacheWrite !== null &&
    !(typeof cacheWrite === 'number' && Number.isFinite(cacheWrite) && cacheWrite >= 0)
  )
    return `${name}: cacheWrite, when given, is a number ≥ 0 in dollars per million tokens (the price of writing the prompt cache)`;
  const [input, cachedInput, output] = numbers as number[];
  return {
    model: name,
    input: input as number,
    cachedInput: cachedInput as number,
    ...(typeof cacheWrite === 'number' ? { cacheWrite } : {}),
    output: output as number,
    source: source.trim(),
    asOf,
  };
}

/**
 * The entries of an old `.loopx/prices.json` (model name → prices), each checked as a person's price is, for `loopx
 * prices import`: the file itself is no longer read for pricing (an agent in its sandbox can write it). Returns the
 * entries that pass, and what was wrong with the rest in words.
 */
export function readPricesFile(text: string, today: string): { entries: PriceEntry[]; problems: string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { entries: [], problems: [`prices.json is not JSON (${(error as Error).message})`] };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    return { entries: [], problems: ['prices.json should map model names to prices'] };
  const entries: PriceEntry[] = [];
  const problems: string[] = [];
  for (const [model, entry] of Object.entries(parsed as Record<string, unknown>)) {
    const e = entry && typeof entry === 'object' ? (entry as Record<string, unknown>) : {};
    const checked = checkPrice(model, { ...e, source: e.source ?? 'prices.json' }, today);
    if (typeof checked === 'string') problems.push(`prices.json: ${checked}; skipped`);
    else entries.push(checked);
  }
  return { entries, problems };
}

/** A turn's tokens as pricing reads them (the turn's usage: turns/usage/usage.ts). */
export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  cacheWriteTokens?: number;
}

/** What the usage costs at a model's prices, in dollars (unrounded). */
export function costAt(usage: TokenCounts, price: ModelPrice): number {
  const writes = usage.cacheWriteTokens ?? 0;
  const fresh = usage.inputTokens - usage.cachedTokens - writes;
  const input = fresh * price.input + usage.cachedTokens * price.cachedInput + writes * (price.cacheWrite ?? price.input);
  return (input + usage.outputTokens * price.output) / 1_000_000;
}

/**
 * What the prompt cache saved on a turn, in dollars at a model's prices: its cached input at the input price less
 * what it cost, less what writing the cache cost above the input price (negative when a turn wrote more than was read).
 */
export function cacheSavedAt(usage: Pick<TokenCounts, 'cachedTokens' | 'cacheWriteTokens'>, price: ModelPrice): number {
  const writes = usage.cacheWriteTokens ?? 0;
  return (usage.cachedTokens * (price.input - price.cachedInput) - writes * ((price.cacheWrite ?? price.input) - price.input)) / 1_000_000;
}

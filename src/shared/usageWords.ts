/**
 * What a turn or a window used, in words people read (the CLI, the status bar, the board's cards). Plain data in:
 * the board bundles this file for the browser.
 */
export interface UsageFacts {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number | null;
}

/** "470 tokens", "41k tokens", "1.2M tokens": what people read on a card or a status bar. */
export function tokenWords(count: number): string {
  if (count < 1000) return `${count} tokens`;
  if (count < 1_000_000) return `${trim(count / 1000)}k tokens`;
  return `${trim(count / 1_000_000)}M tokens`;
}

/**
 * "$3.20", "$10" (whole dollars, as people write a budget), "$0.0038" (small amounts keep two significant digits, so
 * a cheap turn does not read "$0.00").
 */
export function dollars(amount: number): string {
  if (Number.isInteger(amount)) return `$${amount}`;
  if (amount >= 0.01) return `$${amount.toFixed(2)}`;
  // Two significant digits, half up (0.00375 is stored a hair under itself, and toPrecision would say $0.0037).
  const digits = 1 - Math.floor(Math.log10(amount));
  return `$${(Math.round(amount * 10 ** digits * (1 + 1e-12)) / 10 ** digits).toFixed(digits)}`;
}

/** "$0.0038 · 470 tokens (0 cached)": a turn's usage in one phrase; "usage unknown" without one. */
export function usageWords(usage: UsageFacts | null): string {
  if (!usage) return 'usage unknown';
  const tokens = tokenWords(usage.inputTokens + usage.outputTokens);
  const cached = usage.cachedTokens > 0 ? ` (${tokenWords(usage.cachedTokens).replace(' tokens', '')} cached)` : '';
  return usage.costUsd === null ? `${tokens}${cached}, cost unknown` : `${dollars(usage.costUsd)} · ${tokens}${cached}`;
}

function trim(value: number): string {
  return value >= 100 ? String(Math.round(value)) : value.toFixed(1).replace(/\.0$/, '');
}

/** A window's usage against its caps (quota's `usage`), as plain data. */
export interface BudgetFacts {
  tokens: number;
  dollars: number;
  tokensPerWindow: number | null;
  dollarsPerWindow: number | null;
  perTurn: { tokens: number; dollars: number | null } | null;
}

/** "$3.20 of $10 · 410k of 500k tokens": what the window used, against each cap there is. */
export function budgetWords(usage: BudgetFacts): string {
  const money =
    usage.dollarsPerWindow !== null ? `${dollars(usage.dollars)} of ${dollars(usage.dollarsPerWindow)}` : dollars(usage.dollars);
  const tokens =
    usage.tokensPerWindow !== null
      ? `${tokenWords(usage.tokens).replace(' tokens', '')} of ${tokenWords(usage.tokensPerWindow)}`
      : tokenWords(usage.tokens);
  return `${money} · ${tokens}`;
}

/**
 * The money on a goal's meter (the status bar, the board's chip): " · $3.20/$10" against its cap, " · $3.20" once
 * there is any without one, else nothing.
 */
export function meterMoney(usage: Pick<BudgetFacts, 'dollars' | 'dollarsPerWindow'>): string {
  if (usage.dollarsPerWindow !== null) return ` · ${dollars(usage.dollars)}/${dollars(usage.dollarsPerWindow)}`;
  return usage.dollars > 0 ? ` · ${dollars(usage.dollars)}` : '';
}

/**
 * Why a usage cap stops the next turn: spent ("the money budget is spent ($10 of $10 in 24 h)"), or about to be
 * ("the next turn would likely pass the money budget ($0.04 of $0.05 spent in 24 h; a turn costs about $0.02)").
 */
export function capWords(budget: 'tokens' | 'dollars', usage: BudgetFacts, windowHours: number): string {
  const money = budget === 'dollars';
  const used = money ? usage.dollars : usage.tokens;
  const cap = (money ? usage.dollarsPerWindow : usage.tokensPerWindow) ?? 0;
  const amount = (n: number) => (money ? dollars(n) : tokenWords(n));
  const name = money ? 'money' : 'token';
  const of = money ? `${amount(used)} of ${amount(cap)}` : `${amount(used).replace(' tokens', '')} of ${amount(cap)}`;
  if (used >= cap) return `the ${name} budget is spent (${of} in ${windowHours} h)`;
  const perTurn = money ? usage.perTurn?.dollars : usage.perTurn?.tokens;
  const about = perTurn ? `; a turn ${money ? 'costs' : 'uses'} about ${amount(perTurn)}` : '';
  return `the next turn would likely pass the ${name} budget (${of} spent in ${windowHours} h${about})`;
}

/**
 * What is left of each cap there is: "$6.80 left", "90k tokens left", "$6.80 and 90k tokens left"; a cap reached
 * says so ("the money budget is spent"). null when the goal has no cap.
 */
export function budgetLeftWords(usage: BudgetFacts): string | null {
  const money = usage.dollarsPerWindow !== null ? Math.max(0, usage.dollarsPerWindow - usage.dollars) : null;
  const tokens = usage.tokensPerWindow !== null ? Math.max(0, usage.tokensPerWindow - usage.tokens) : null;
  if (money === null && tokens === null) return null;
  const spent = [money === 0 ? 'money' : null, tokens === 0 ? 'token' : null].filter((b) => b !== null);
  if (spent.length) return `the ${spent.join(' and ')} budget${spent.length > 1 ? 's are' : ' is'} spent`;
  const left = [money !== null ? dollars(money) : null, tokens !== null ? tokenWords(tokens) : null].filter((w) => w !== null);
  return `${left.join(' and ')} left`;
}

/**
 * A goal's window in one line, for its header on the board: "$3.20 of $10 · 410k tokens in the last 24 h; $6.80
 * left". null when the window used nothing and the goal has no cap: nothing to say.
 */
export function windowUsageWords(usage: BudgetFacts, windowHours: number): string | null {
  if (usage.tokens === 0 && usage.dollars === 0 && usage.dollarsPerWindow === null && usage.tokensPerWindow === null) return null;
  const left = budgetLeftWords(usage);
  return `${budgetWords(usage)} in the last ${trim(windowHours)} h${left ? `; ${left}` : ''}`;
}

/** What the prompt cache did for a goal's turns (kernel/readModels/cacheFigures.ts), as plain data. */
export interface CacheFacts {
  hitShare: number | null;
  savedUsd: number | null;
}

/**
 * "62% of input read from the prompt cache, saving $0.41": the cache's share and its savings in one phrase (a cache
 * that cost more to write than it saved says so); null when no turn's input is known.
 */
export function cacheWords(cache: CacheFacts): string | null {
  if (cache.hitShare === null) return null;
  const share = `${Math.round(cache.hitShare * 100)}% of input read from the prompt cache`;
  if (cache.savedUsd === null || cache.savedUsd === 0) return share;
  return cache.savedUsd > 0
    ? `${share}, saving ${dollars(cache.savedUsd)}`
    : `${share}, costing ${dollars(-cache.savedUsd)} more to write than it saved`;
}

/** The prompt cache as a tile (the story view, the review page): "62%" over "of input read from the prompt cache, saving $0.41". */
export function cacheTileWords(cache: CacheFacts): { value: string; detail: string } {
  const words = cacheWords(cache);
  if (!words) return { value: '—', detail: "no turn's input is known yet" };
  const value = words.slice(0, words.indexOf('%') + 1);
  return { value, detail: words.slice(value.length + 1) };
}

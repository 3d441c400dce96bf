import * as z from 'zod/mini';

/**
 * The events of a person's price table, spread into the kernel's event table (eventTypes.ts). Both are a person's
 * decision (HUMAN_ONLY_KINDS, authority.ts): what a turn's tokens cost decides when a goal's money cap is reached.
 * They name no goal or todo: a price is about a model, not a piece of work.
 */
export function priceEventSchemas() {
  const str = z.string();
  const dollars = z.number();
  return {
    /** A person set a model's price in dollars per million tokens (a new model, or over the built-in or their own). */
    'price.set': z.object({
      model: str,
      input: dollars,
      cachedInput: dollars,
      /** Writing the prompt cache; absent: the input price (and in every price set before loopx counted cache writes). */
      cacheWrite: z.optional(dollars),
      output: dollars,
      source: str,
      asOf: str,
    }),
    /** A person removed their price for a model: the built-in one applies again, if there is one. */
    'price.removed': z.object({ model: str }),
  };
}

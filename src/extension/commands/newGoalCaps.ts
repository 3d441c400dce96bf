import { usageCaps } from '../../kernel/goals/goals';
import { InvalidInputError } from '../../kernel/errors';

/** A cap as typed into New Goal: its value (null: no cap, the box left empty), or what is wrong, in words. */
export type CapAnswer = { value: number | null } | { error: string };

const SUFFIX: Record<string, number> = { '': 1, k: 1_000, m: 1_000_000 };

/** A token cap as people write one: "2000000", "2,000,000", "2M", "500k", "1.5m"; empty for none. */
export function parseTokenCap(text: string): CapAnswer {
  const t = text.trim().replace(/[,_ ](?=\d{3}\b)/g, '');
  if (t === '') return { value: null };
  const match = /^(\d+(?:\.\d+)?)\s*([kKmM]?)(?:\s*tokens?)?$/.exec(t);
  if (!match) return { error: 'Type a number of tokens, like 2000000, 2M or 500k, or leave it empty for no cap' };
  const value = Math.round(Number(match[1]) * (SUFFIX[(match[2] ?? '').toLowerCase()] ?? 1));
  return checked(() => usageCaps({ tokensPerWindow: value }).tokensPerWindow, value);
}

/** A money cap in US dollars: "10", "$10", "2.50", "$1,000"; empty for none. */
export function parseDollarCap(text: string): CapAnswer {
  const t = text
    .trim()
    .replace(/^\$\s*/, '')
    .replace(/,(?=\d{3}\b)/g, '');
  if (t === '') return { value: null };
  if (!/^\d+(?:\.\d+)?$/.test(t)) return { error: 'Type an amount in US dollars, like 10 or 2.50, or leave it empty for no cap' };
  return checked(() => usageCaps({ dollarsPerWindow: Number(t) }).dollarsPerWindow, Number(t));
}

/** Through the goals' own rule (usageCaps: one home for the ranges), its refusal as the box's message. */
function checked(check: () => number | null, typed: number): CapAnswer {
  try {
    return { value: check() };
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    // "tokens must be a whole number from 1 to …": a sentence for the box, with the number that was typed; New Goal's
    // window is a day.
    const message = error.message.charAt(0).toUpperCase() + error.message.slice(1).replace(/ per window$/, ' in 24 hours');
    return { error: `${message}, not ${typed}` };
  }
}

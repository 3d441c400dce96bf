import { describe, expect, test } from 'vitest';
import { parseDollarCap, parseTokenCap } from './newGoalCaps';

describe("New Goal's caps, as a person types them", () => {
  test('token caps: plain, with separators, with k or M; empty is no cap', () => {
    expect(['2000000', '2,000,000', '2M', '2 m', '500k', '1.5M', '300 tokens', '  '].map((t) => parseTokenCap(t))).toEqual([
      { value: 2_000_000 },
      { value: 2_000_000 },
      { value: 2_000_000 },
      { value: 2_000_000 },
      { value: 500_000 },
      { value: 1_500_000 },
      { value: 300 },
      { value: null },
    ]);
  });

  test('money caps: dollars with or without $, cents kept to the cent; empty is no cap', () => {
    expect(['10', '$10', '$ 2.50', '1,000', '0.125', ''].map((t) => parseDollarCap(t))).toEqual([
      { value: 10 },
      { value: 10 },
      { value: 2.5 },
      { value: 1000 },
      { value: 0.13 },
      { value: null },
    ]);
  });

  test('what is not a cap is said in words, with what to type; out of range in the goals’ own words', () => {
    expect(parseTokenCap('lots')).toEqual({ error: 'Type a number of tokens, like 2000000, 2M or 500k, or leave it empty for no cap' });
    expect(parseTokenCap('-5')).toEqual({ error: 'Type a number of tokens, like 2000000, 2M or 500k, or leave it empty for no cap' });
    expect(parseTokenCap('0')).toEqual({ error: 'Tokens must be a whole number from 1 to 1000000000000 in 24 hours, not 0' });
    expect(parseTokenCap('5000000M')).toEqual({
      error: 'Tokens must be a whole number from 1 to 1000000000000 in 24 hours, not 5000000000000',
    });
    expect(parseDollarCap('ten')).toEqual({ error: 'Type an amount in US dollars, like 10 or 2.50, or leave it empty for no cap' });
    expect(parseDollarCap('€10')).toEqual({ error: 'Type an amount in US dollars, like 10 or 2.50, or leave it empty for no cap' });
    expect(parseDollarCap('0')).toEqual({ error: 'Dollars must be an amount above 0 and at most 1000000 in 24 hours, not 0' });
    expect(parseDollarCap('2000000')).toEqual({ error: 'Dollars must be an amount above 0 and at most 1000000 in 24 hours, not 2000000' });
  });
});

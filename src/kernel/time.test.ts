import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { iso } from './time';

describe('iso', () => {
  it('writes every time exactly as Date.prototype.toISOString does', () => {
    const edges = [0, -1, 1, 253402300799999, 253402300800000, -62167219200000, -62167219200001, 8.64e15, -8.64e15, Date.now()];
    for (const ms of edges) expect(iso(ms), String(ms)).toBe(new Date(ms).toISOString());
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => iso(ms) === new Date(ms).toISOString()),
      { numRuns: 20_000 },
    );
    fc.assert(fc.property(fc.integer({ min: 0, max: 4102444800000 }), (ms) => iso(ms) === new Date(ms).toISOString()));
  });

  it('refuses an invalid time as toISOString does (a RangeError), never writes "NaN"', () => {
    for (const ms of [Number.NaN, 8.64e15 + 1, Number.POSITIVE_INFINITY]) expect(() => iso(ms)).toThrow(RangeError);
  });
});

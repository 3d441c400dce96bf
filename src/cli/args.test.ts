import { describe, expect, test } from 'vitest';
import { EXIT, InvalidInputError } from '../kernel/errors';
import { type FlagSpec, parseArgs } from './args';
import { CLI_COMMANDS } from './registry';

const flags: Record<string, FlagSpec> = {
  limit: { type: 'int', value: 'N', min: 1, max: 500, description: 'how many' },
  turns: { type: 'int', value: 'N', min: 1, description: 'at least one' },
  ratio: { type: 'number', value: 'R', max: 1, description: 'at most one' },
};
const parse = (...tokens: string[]) => parseArgs(tokens, flags, [], 'test');
const refusal = (...tokens: string[]) => {
  try {
    parse(...tokens);
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('numeric flags have their range in their spec', () => {
  test('values inside the range pass, the ends included', () => {
    expect(parse('--limit', '1').num('limit')).toBe(1);
    expect(parse('--limit=500').num('limit')).toBe(500);
    expect(parse('--turns', '100000').num('turns')).toBe(100_000);
    expect(parse('--ratio', '-3.5').num('ratio')).toBe(-3.5);
  });

  test.each([
    [['--limit', '0'], '--limit must be from 1 to 500, got 0'],
    [['--limit', '501'], '--limit must be from 1 to 500, got 501'],
    [['--limit', '-5'], '--limit must be from 1 to 500, got -5'],
    [['--turns', '0'], '--turns must be at least 1, got 0'],
    [['--ratio', '1.5'], '--ratio must be at most 1, got 1.5'],
  ])('%j is invalid input (exit 2): %s', (tokens, message) => {
    const error = refusal(...tokens);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ message, exitCode: EXIT.invalidInput });
  });

  test("every command's --limit says how few and how many it takes", () => {
    const limits = CLI_COMMANDS.filter((c) => c.flags?.limit).map((c) => [
      c.name.join(' '),
      c.flags?.limit?.min,
      typeof c.flags?.limit?.max,
    ]);
    expect(limits.length).toBeGreaterThan(2);
    for (const [name, min, max] of limits) expect({ name, min, max }).toEqual({ name, min: 1, max: 'number' });
  });
});

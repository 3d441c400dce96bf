import { describe, expect, test } from 'vitest';
import { EXIT, InvalidInputError } from '../kernel/errors';
import { type FlagSpec, parseArgs } from './args';
import { CLI_COMMANDS } from './registry';

const flags: Record<string, FlagSpec> = {
  limit: { type: 'int', value: 'N', min: 1, max: 500, description: 'how many' },
  turns: { type: 'int', value: 'N', min: 1, description: 'at least one' },
  ratio: { type: 'number', value: 'R', max: 1, description: 'at most one' },
  lease: { type: 'duration', value: 'D', min: 60, max: 86_400, description: 'a duration with a range' },
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
    [['--lease', '30s'], '--lease must be from 1m to 1d, got 30s'],
    [['--lease', '2d'], '--lease must be from 1m to 1d, got 2d'],
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

  test('a duration flag takes its range in seconds, the ends included', () => {
    expect(parse('--lease', '1m').num('lease')).toBe(60);
    expect(parse('--lease', '24h').num('lease')).toBe(86_400);
  });

  test('no command checks a numeric or duration flag by hand: todo show and loopx run declare their ranges', () => {
    const spec = (words: string, flag: string) => CLI_COMMANDS.find((c) => c.name.join(' ') === words)?.flags?.[flag];
    expect(spec('todo show', 'evidence')).toMatchObject({ min: 0, max: 1000 });
    expect(spec('todo show', 'history')).toMatchObject({ min: 0, max: 1000 });
    expect(spec('run', 'turn-limit')).toMatchObject({ type: 'duration', min: 10 });
    expect(spec('run', 'lease')).toMatchObject({ type: 'duration', min: 10, max: 86_400 });
  });
});

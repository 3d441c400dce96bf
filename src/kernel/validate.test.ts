import { describe, expect, test } from 'vitest';
import { parseAgentName, parseId, requireText } from './validate';
import { parseDuration } from './time';
import { parseScope } from './workspacePaths';

describe('ids', () => {
  test('normalise case and refuse anything else with exit 2', () => {
    expect(parseId('todo', 't12')).toBe('T12');
    expect(parseId('gate', ' Q3 ')).toBe('Q3');
    for (const bad of ['', '12', 'T0', 'T-1', 'G1', 'T1; DROP', 'T12345678901', undefined]) {
      expect(() => parseId('todo', bad)).toThrow(expect.objectContaining({ exitCode: 2 }));
    }
  });
});

describe('text', () => {
  test('trims, requires content, refuses control and bidi characters', () => {
    expect(requireText('  hi  ', 'title')).toBe('hi');
    for (const bad of ['', '   ', 'a\u0007b', 'a\u202eb', 'a\u009bb'])
      expect(() => requireText(bad, 'title')).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(requireText('two\nlines', 'detail', { multiline: true })).toBe('two\nlines');
  });
});

describe('agent names', () => {
  test('accept tool-like names, refuse spaces, shell metacharacters and overlong names', () => {
    for (const ok of ['codex', 'claude-code', 'worker.3', 'bot@ci', 'a+b']) expect(parseAgentName(ok)).toBe(ok);
    for (const bad of ['', ' codex', 'two words', '$(id)', '-flag', 'x'.repeat(65)])
      expect(() => parseAgentName(bad)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});

describe('durations', () => {
  test('are 90s, 30m, 2h or 1d', () => {
    expect([parseDuration('90s'), parseDuration('30m'), parseDuration('2h'), parseDuration('1d')]).toEqual([90, 1800, 7200, 86400]);
    for (const bad of ['', '30', 'm', '1.5h', '-5m', '0s', '5 minutes'])
      expect(() => parseDuration(bad)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});

describe('scope', () => {
  test('stays inside the workspace', () => {
    expect(parseScope('src\\parser\\**')).toBe('src/parser/**');
    for (const bad of ['/etc', '../x', 'a/../../b', 'C:\\x', ''])
      expect(() => parseScope(bad)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});

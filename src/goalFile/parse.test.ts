import { describe, expect, test } from 'vitest';
import { parseGoalFile } from './parse';
import { formatDiagnostic } from './diagnostics';

const FILE = `---
title: CSV importer
objective: All fixtures import
scope: [src/importer/**]
quota:
  turns: 12
  window: 24h
  maxConcurrent: 2
  cooldown: 10m
todos:
  - key: parse-header
    title: Parse the header row
    priority: 1
  - key: quoted-fields
    title: Quoted fields
    detail: |
      RFC 4180 quoting, with fixtures.
    after: [parse-header]
---

## Background

Customers send us CSV.
`;

const at = (text: string) => parseGoalFile(text).diagnostics.map((d) => formatDiagnostic('f.goal.md', d));

describe('a good goal file', () => {
  test('becomes a spec: goal fields, quota in kernel units, todos with defaults, the body as background', () => {
    const { spec, diagnostics } = parseGoalFile(FILE);
    expect(diagnostics).toEqual([]);
    expect(spec).toEqual({
      title: 'CSV importer',
      objective: 'All fixtures import',
      scope: ['src/importer/**'],
      quota: { turnsPerWindow: 12, windowHours: 24, maxConcurrent: 2, cooldownSeconds: 600 },
      background: '## Background\n\nCustomers send us CSV.',
      todos: [
        { key: 'parse-header', title: 'Parse the header row', detail: '', priority: 1, after: [] },
        { key: 'quoted-fields', title: 'Quoted fields', detail: 'RFC 4180 quoting, with fixtures.', priority: 2, after: ['parse-header'] },
      ],
    });
  });

  test('a range points at the node: todo 2 key is on line 14 (zero-based 13)', () => {
    const parsed = parseGoalFile(FILE);
    expect(parsed.rangeOf(['todos', 1, 'key'])?.start).toEqual({ line: 13, character: 9 });
    expect(parsed.frontMatterLines).toEqual({ start: 1, end: 18 });
  });
});

describe('bad goal files: every problem has a line and column', () => {
  test('invalid YAML', () => {
    expect(at('---\ntitle: [unclosed\n---\n')).toEqual([expect.stringMatching(/^f\.goal\.md:\d+:\d+: error: /)]);
  });

  test('no front matter, and unclosed front matter', () => {
    expect(at('# just markdown\n')[0]).toContain('starts with a `---` line');
    expect(at('---\ntitle: x\n')[0]).toContain('not closed');
  });

  test('wrong types name the field, what it should be and what it is', () => {
    const text = FILE.replace('priority: 1', 'priority: high').replace('turns: 12', 'turns: "twelve"');
    expect(at(text)).toEqual([
      'f.goal.md:6:10: error: `quota.turns` should be a whole number, not text',
      'f.goal.md:13:15: error: `todos[0].priority` should be a whole number, not text',
    ]);
  });

  test('an unknown key gets a did-you-mean with the suggestion for a quick fix', () => {
    const parsed = parseGoalFile(FILE.replace('    priority: 1', '    priorty: 1'));
    expect(parsed.diagnostics).toMatchObject([
      { code: 'unknown_key', suggestion: 'priority', range: { start: { line: 12, character: 4 } } },
    ]);
    expect(parsed.diagnostics[0]?.message).toBe('unknown key `priorty`; did you mean `priority`?');
    expect(parsed.spec).toBeNull();
  });

  test('a missing title, a duplicate key, an unknown after key and a bad duration', () => {
    const text = FILE.replace('title: CSV importer\n', '')
      .replace('key: quoted-fields', 'key: parse-header')
      .replace('after: [parse-header]', 'after: [parse-headr]')
      .replace('window: 24h', 'window: a day');
    const messages = parseGoalFile(text).diagnostics.map((d) => d.message);
    expect(messages).toEqual(['`title` is required']);
    const rest = at(
      FILE.replace('key: quoted-fields', 'key: parse-header')
        .replace('after: [parse-header]', 'after: [parse-headr]')
        .replace('window: 24h', 'window: a day'),
    );
    expect(rest).toEqual([
      'f.goal.md:7:11: error: `quota.window` must be a duration like 24h (s, m, h or d), not "a day"',
      'f.goal.md:14:10: error: todo key `parse-header` is used twice (first in todo 1)',
      'f.goal.md:18:13: error: `after` names `parse-headr`, which is no todo key in this file; did you mean `parse-header`?',
    ]);
  });

  test('a cycle points at the after entry that closes it', () => {
    const text = FILE.replace('    priority: 1\n', '    priority: 1\n    after: [quoted-fields]\n');
    expect(at(text)).toEqual([
      'f.goal.md:19:13: error: the todos wait for each other in a cycle: parse-header → quoted-fields → parse-header',
    ]);
  });

  test("every, at, cron, tz and check become the kernel's recurrence and checks", () => {
    const parsed = parseGoalFile(
      FILE.replace('quota:\n', 'check: npm test\nquota:\n')
        .replace('    priority: 1\n', '    priority: 1\n    every: 1d\n    at: "09:00"\n    tz: Europe/Berlin\n')
        .replace('    after: [parse-header]\n', '    after: [parse-header]\n    cron: 0 9 * * 1-5\n    check: null\n'),
    );
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.spec?.check).toBe('npm test');
    expect(parsed.spec?.todos[0]).toMatchObject({ recurrence: { every: 86400, at: '09:00', tz: 'Europe/Berlin' } });
    expect(parsed.spec?.todos[0]).not.toHaveProperty('check');
    expect(parsed.spec?.todos[1]).toMatchObject({ recurrence: { cron: '0 9 * * 1-5' }, check: null });
  });

  test('durations and cron that do not parse, and recurrence fields that do not fit, are errors at their value', () => {
    const todo = (lines: string) => at(FILE.replace('    priority: 1\n', `    priority: 1\n${lines}`));
    expect(todo('    every: daily\n')).toEqual([
      'f.goal.md:14:12: error: `every` must be a duration from 1m to 366d (s, m, h or d), like 1d or 12h, not "daily"',
    ]);
    expect(todo('    every: 10s\n')).toEqual([
      'f.goal.md:14:12: error: `every` must be a duration from 1m to 366d (s, m, h or d), like 1d or 12h, not "10s"',
    ]);
    expect(todo('    cron: 0 25 * * *\n')).toEqual([
      expect.stringMatching(/^f\.goal\.md:14:11: error: `cron` "0 25 \* \* \*" is not a cron expression: /),
    ]);
    expect(todo('    every: 12h\n    at: "09:00"\n')).toEqual([
      'f.goal.md:15:9: error: `at` goes with an `every` of whole days (1d, 2d, 7d)',
    ]);
    expect(todo('    at: "09:00"\n')).toEqual(['f.goal.md:14:9: error: `at` goes with `every`; this todo does not recur']);
    expect(todo('    every: 1d\n    cron: "@daily"\n')).toEqual([
      'f.goal.md:15:11: error: a todo recurs either `every` D or on `cron` EXPR, not both',
    ]);
    expect(todo('    every: 1d\n    tz: Mars/Base\n')).toEqual(['f.goal.md:15:9: error: `tz` "Mars/Base" is not a time zone']);
    expect(todo('    check: "two\\nlines"\n')).toEqual(['f.goal.md:14:12: error: check must be a single line']);
  });

  test('a 5 MB file is refused before parsing', () => {
    const huge = `${FILE}\n${'x'.repeat(5 * 1024 * 1024)}`;
    expect(at(huge)).toEqual(['f.goal.md:1:1: error: the file is 5.0 MB; a goal file may be at most 1 MB']);
  });

  test('text the kernel would refuse is reported where it is (a multi-line title)', () => {
    expect(at(FILE.replace('title: Parse the header row', 'title: "two\\nlines"'))).toEqual([
      'f.goal.md:12:12: error: title must be a single line',
    ]);
  });
});

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
    expect(at(text)).toEqual([
      'f.goal.md:2:1: error: `title` is required',
      'f.goal.md:6:11: error: `quota.window` must be a duration like 24h (s, m, h or d), not "a day"',
      'f.goal.md:13:10: error: todo key `parse-header` is used twice (first in todo 1)',
      'f.goal.md:17:13: error: `after` names `parse-headr`, which is no todo key in this file; did you mean `parse-header`?',
    ]);
  });

  test("quota values outside the kernel's ranges are reported at their place in goal create's words", () => {
    const text = FILE.replace('turns: 12', 'turns: 100001')
      .replace('window: 24h', 'window: 400d')
      .replace('maxConcurrent: 2', 'maxConcurrent: 0')
      .replace('cooldown: 10m', 'cooldown: 60d');
    expect(at(text)).toEqual([
      'f.goal.md:6:10: error: turns must be a whole number from 0 to 100000',
      'f.goal.md:7:11: error: window hours must be a number above 0 and at most 8784 (a year)',
      'f.goal.md:8:18: error: max concurrent must be a whole number from 1 to 1000',
      'f.goal.md:9:13: error: cooldown must be a whole number from 0 to 2592000',
    ]);
    expect(parseGoalFile(text).diagnostics.map((d) => d.code)).toEqual(Array(4).fill('out_of_range'));
    expect(at(FILE.replace('cooldown: 10m', 'cooldown: 30d'))).toEqual([]);
  });

  test('usage caps: tokens and dollars per window; null removes a cap; a file without them leaves caps unmanaged', () => {
    const caps = (text: string) => parseGoalFile(FILE.replace('cooldown: 10m', `cooldown: 10m\n${text}`)).spec?.quota;
    expect(caps('  tokens: 2000000\n  dollars: 12.5')).toMatchObject({ tokensPerWindow: 2_000_000, dollarsPerWindow: 12.5 });
    expect(caps('  tokens: null\n  dollars: ~')).toMatchObject({ tokensPerWindow: null, dollarsPerWindow: null });
    const none = parseGoalFile(FILE).spec?.quota ?? {};
    expect(['tokensPerWindow' in none, 'dollarsPerWindow' in none]).toEqual([false, false]);
  });

  test("bad caps (negative, zero, fractional tokens, not a number, absurd) are errors at their value, in goal create's words", () => {
    const with_ = (tokens: string, dollars: string) =>
      at(FILE.replace('cooldown: 10m', `cooldown: 10m\n  tokens: ${tokens}\n  dollars: ${dollars}`));
    const tokensRange = 'tokens must be a whole number from 1 to 1000000000000 per window';
    const dollarsRange = 'dollars must be an amount above 0 and at most 1000000 per window';
    expect(with_('-5', '0')).toEqual([`f.goal.md:10:11: error: ${tokensRange}`, `f.goal.md:11:12: error: ${dollarsRange}`]);
    expect(with_('1e13', '5000000')).toEqual([`f.goal.md:10:11: error: ${tokensRange}`, `f.goal.md:11:12: error: ${dollarsRange}`]);
    expect(with_('1.5', '"$10"')).toEqual([
      'f.goal.md:10:11: error: `quota.tokens` should be a whole number, not a number',
      'f.goal.md:11:12: error: `quota.dollars` should be a number, not text',
    ]);
    expect(with_('lots', '-0.01')).toEqual([
      'f.goal.md:10:11: error: `quota.tokens` should be a whole number, not text',
      `f.goal.md:11:12: error: ${dollarsRange}`,
    ]);
    expect(with_('1000000000000', '1000000')).toEqual([]);
  });

  test('worktree: a base sets it, null, ~ or empty turns it off, left out it is not managed; worktreeSetup likewise', () => {
    const worktree = (text: string) => {
      const spec = parseGoalFile(FILE.replace('todos:', `${text}\ntodos:`)).spec;
      return spec && { worktree: spec.worktree, worktreeSetup: spec.worktreeSetup, has: 'worktree' in spec };
    };
    expect(worktree('worktree: main\nworktreeSetup: npm ci')).toEqual({ worktree: 'main', worktreeSetup: 'npm ci', has: true });
    for (const off of ['worktree: null', 'worktree: ~', 'worktree:', "worktree: ''"])
      expect(worktree(off), off).toEqual({ worktree: null, worktreeSetup: undefined, has: true });
    expect(worktree('')).toEqual({ worktree: undefined, worktreeSetup: undefined, has: false });
    expect(at(FILE.replace('todos:', 'worktree: [main]\nworktreSetup: x\ntodos:'))).toEqual([
      'f.goal.md:10:11: error: `worktree` should be text, not a list',
      'f.goal.md:11:1: error: unknown key `worktreSetup`; did you mean `worktreeSetup`?',
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

describe('every problem at once', () => {
  const ONE_OF_EACH = FILE.replace('    priority: 1\n', '    priorty: 1\n')
    .replace('turns: 12', 'turns: "twelve"')
    .replace('after: [parse-header]', 'after: [parse-headr]')
    .replace(
      'todos:\n',
      'todos:\n  - key: left\n    title: Left\n    after: [right]\n  - key: right\n    title: Right\n    after: [left]\n',
    );

  test('an unknown key, a bad value, an unknown after key and a cycle are reported together, in file order', () => {
    expect(at(ONE_OF_EACH)).toEqual([
      'f.goal.md:6:10: error: `quota.turns` should be a whole number, not text',
      'f.goal.md:16:13: error: the todos wait for each other in a cycle: left → right → left',
      'f.goal.md:19:5: error: unknown key `priorty`; did you mean `priority`?',
      'f.goal.md:24:13: error: `after` names `parse-headr`, which is no todo key in this file; did you mean `parse-header`?',
    ]);
    expect(parseGoalFile(ONE_OF_EACH).spec).toBeNull();
    // An unknown key of the front matter itself (zod reports it on the whole mapping) hides nothing either.
    expect(at(ONE_OF_EACH.replace('    priorty: 1\n', '').replace('objective:', 'objetive:'))).toEqual([
      'f.goal.md:3:1: error: unknown key `objetive`; did you mean `objective`?',
      'f.goal.md:6:10: error: `quota.turns` should be a whole number, not text',
      'f.goal.md:16:13: error: the todos wait for each other in a cycle: left → right → left',
      'f.goal.md:23:13: error: `after` names `parse-headr`, which is no todo key in this file; did you mean `parse-header`?',
    ]);
  });

  test('a todo key that is no slug is reported once: `after` entries that name it are not reported again', () => {
    expect(at(FILE.replace('key: parse-header', 'key: Parse Header').replace('after: [parse-header]', 'after: [Parse Header]'))).toEqual([
      'f.goal.md:11:10: error: todo key "Parse Header" must be a slug: lower-case letters, digits and -, up to 64',
    ]);
  });

  test('a recurrence field of the wrong type is reported once, not echoed by the fields that go with it', () => {
    expect(at(FILE.replace('    priority: 1\n', '    priority: 1\n    every: [1d]\n    at: "09:00"\n'))).toEqual([
      'f.goal.md:14:12: error: `todos[0].every` should be a duration like 24h or 10m, not a list',
    ]);
  });

  test('completion and hover still see the parts that fail the shape (what lint checks leaves them out, not the file)', () => {
    const parsed = parseGoalFile(ONE_OF_EACH);
    const fm = parsed.frontMatter as { quota: { turns: unknown }; todos: Record<string, unknown>[] };
    expect(fm.quota.turns).toBe('twelve');
    expect(fm.todos.find((t) => t.key === 'parse-header')).toMatchObject({ priorty: 1 });
    // Checking it again gives the same diagnostics: nothing was left out of the value it returned.
    expect(parseGoalFile(ONE_OF_EACH).diagnostics).toEqual(parsed.diagnostics);
  });

  test('a missing title is reported with the problems of the todos, not instead of them', () => {
    expect(at(FILE.replace('title: CSV importer\n', '').replace('after: [parse-header]', 'after: [nope]'))).toEqual([
      'f.goal.md:2:1: error: `title` is required',
      'f.goal.md:17:13: error: `after` names `nope`, which is no todo key in this file',
    ]);
  });
});

describe('a YAML syntax error leaves the rest of the file standing', () => {
  const BROKEN = FILE.replace('title: Parse the header row', 'title: Parse: the: header').replace(
    'after: [parse-header]',
    'after: [parse-header, nope]\n    colour: red',
  );

  test('the syntax error, and the problems of the parts that still parse', () => {
    const parsed = parseGoalFile(BROKEN);
    expect(parsed.diagnostics.map((d) => formatDiagnostic('f.goal.md', d))).toEqual([
      'f.goal.md:12:12: error: Nested mappings are not allowed in compact mappings',
      'f.goal.md:12:19: error: Nested mappings are not allowed in compact mappings',
      'f.goal.md:18:27: error: `after` names `nope`, which is no todo key in this file',
      'f.goal.md:19:5: error: unknown key `colour`; known keys: key, id, title, detail, priority, after, every, at, cron, tz, check, review',
    ]);
    expect(parsed.spec).toBeNull();
  });

  test("what the error damaged is left out, not reported as the error's echo (no `title` should be text)", () => {
    const parsed = parseGoalFile(BROKEN);
    expect(parsed.diagnostics.map((d) => d.code)).not.toContain('wrong_type');
    // The front matter as far as it parses: the broken todo is left out, the others keep their places.
    const todos = (parsed.frontMatter as { todos: unknown[] }).todos;
    expect(todos).toHaveLength(2);
    expect(todos[0]).toBeUndefined();
    expect(todos[1]).toMatchObject({ key: 'quoted-fields' });
    expect(parsed.rangeOf(['todos', 1, 'key'])?.start).toEqual({ line: 13, character: 9 });
  });

  test('an `after` entry that may name the broken todo is not called unknown; a title the error broke is not called missing', () => {
    // `yaml` notices the unclosed list at the next line: both entries are left out, neither is called missing.
    const brokenTitle = FILE.replace('title: CSV importer', 'title: [CSV importer').replace('priority: 1', 'priority: high');
    expect(at(brokenTitle)).toEqual([
      'f.goal.md:3:1: error: Flow sequence in block collection must be sufficiently indented and end with a ]',
      'f.goal.md:13:15: error: `todos[0].priority` should be a whole number, not text',
    ]);
    expect(at(BROKEN.replace('after: [parse-header, nope]', 'after: [parse-header]'))).toEqual([
      'f.goal.md:12:12: error: Nested mappings are not allowed in compact mappings',
      'f.goal.md:12:19: error: Nested mappings are not allowed in compact mappings',
      'f.goal.md:19:5: error: unknown key `colour`; known keys: key, id, title, detail, priority, after, every, at, cron, tz, check, review',
    ]);
  });

  test('an alias with no anchor is reported at the alias, and the rest of the file is still checked', () => {
    expect(at(FILE.replace('title: Parse the header row', 'title: *name').replace('after: [parse-header]', 'after: [nope]'))).toEqual([
      'f.goal.md:12:12: error: the alias `*name` names no anchor: put `&name` on a value above it',
      'f.goal.md:18:13: error: `after` names `nope`, which is no todo key in this file',
    ]);
  });
});

describe('messages about the file, never about the runtime', () => {
  test('5,000 levels of nesting: the file nests too deep, said in words at the place', () => {
    const deep = FILE.replace('objective: All fixtures import', `objective: ${'['.repeat(5000)}${']'.repeat(5000)}`);
    const messages = at(deep);
    expect(messages).toEqual([
      "f.goal.md:3:75: error: lists and mappings nest more than 64 levels deep here; a goal file needs 4 (a todo's `after` list)",
    ]);
    expect(messages.join('\n')).not.toMatch(/call stack|RangeError|Maximum/);
  });

  test('block lists nested too deep are refused the same way', () => {
    const block = FILE.replace(
      'objective: All fixtures import',
      `objective:\n${Array.from({ length: 100 }, (_, i) => `${' '.repeat(i + 1)}-`).join('\n')} x`,
    );
    expect(at(block)).toEqual([expect.stringMatching(/^f\.goal\.md:67:65: error: lists and mappings nest more than 64 levels deep here/)]);
  });

  test('the longest chain of `after` a 1 MB file holds (20,000 todos) is checked without running out of stack', () => {
    const chain = ['---', 'title: Chain', 'todos:'];
    for (let i = 0; i < 20_000; i++) chain.push(`  - key: k${i}`, `    title: t`, ...(i > 0 ? [`    after: [k${i - 1}]`] : []));
    const parsed = parseGoalFile(`${chain.join('\n')}\n---\n`);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.spec?.todos).toHaveLength(20_000);
  });
});

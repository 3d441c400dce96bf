import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { FrontMatterParser, type PathSegment, parseWhole } from './frontMatterYaml';
import { parseGoalFile } from './parse';

function frontMatter(todos: number, edit = -1): string {
  const lines = ['title: Bench goal', 'scope: [src/**]', 'todos:'];
  for (let i = 0; i < todos; i++) {
    lines.push(`  - key: step-${i}`, `    title: Step ${i}${i === edit ? ' (edited)' : ''}`, `    priority: ${i % 4}`);
    if (i > 0) lines.push(`    after: [step-${i - 1}]`);
  }
  return `${lines.join('\n')}\n`;
}

/** Every path of a parsed value: maps by key, lists by index. */
function paths(value: unknown, prefix: PathSegment[] = []): PathSegment[][] {
  if (Array.isArray(value)) return [prefix, ...value.flatMap((v, i) => paths(v, [...prefix, i]))];
  if (value && typeof value === 'object') return [prefix, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...prefix, k]))];
  return [prefix];
}

function attempt(fn: () => unknown): unknown {
  try {
    return fn();
  } catch (error) {
    return { threw: (error as Error).message };
  }
}

function expectSameAsWhole(parser: FrontMatterParser, text: string): void {
  const split = parser.parse(text);
  const reference = parseWhole(text);
  expect(split.errors).toEqual(reference.errors);
  const value = attempt(() => reference.toJS());
  expect(attempt(() => split.toJS())).toEqual(value);
  for (const path of paths(value)) {
    for (const key of [false, true]) expect([path, key, split.locate(path, key)]).toEqual([path, key, reference.locate(path, key)]);
  }
  for (const path of [['todos', 99], ['todos', 0, 'nope'], ['nope']] as PathSegment[][]) {
    expect(split.locate(path, false)).toEqual(reference.locate(path, false));
  }
}

describe('front matter parsed item by item', () => {
  test('an edit of one todo of 500 re-parses that todo only', () => {
    const parser = new FrontMatterParser();
    parser.parse(frontMatter(500));
    expect(parser.stats).toEqual({ mode: 'split', itemsParsed: 500, itemsReused: 0 });
    parser.parse(frontMatter(500, 250));
    expect(parser.stats).toEqual({ mode: 'split', itemsParsed: 1, itemsReused: 499 });
  });

  test('gives the same value, positions and errors as one parse of the whole text', () => {
    const item = fc.record({
      key: fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
      title: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('a: b', '"quoted"', "it's", '- dash', '#hash', 'x # note')),
      detail: fc.option(fc.constantFrom('|\n      one\n      two', '>\n      folded\n      text', 'plain', '[a, b]'), { nil: undefined }),
      after: fc.array(fc.stringMatching(/^[a-z]{1,4}$/), { maxLength: 3 }),
      blankAfter: fc.boolean(),
      comment: fc.boolean(),
    });
    const file = fc.record({
      indent: fc.constantFrom('', '  ', '    '),
      items: fc.array(item, { maxLength: 6 }),
      trailer: fc.constantFrom('', 'objective: after the list\n', '# a comment\nquota:\n  turns: 3\n', 'todos: again\n'),
    });
    fc.assert(
      fc.property(file, fc.nat(), ({ indent, items, trailer }, pick) => {
        const text = `title: T\ntodos:\n${items
          .map((t) => {
            const value = t.title.includes('\n') ? JSON.stringify(t.title) : t.title;
            const rows = [`${indent}- key: ${t.key}`, `${indent}  title: ${value}`];
            if (t.detail) rows.push(`${indent}  detail: ${t.detail.replaceAll('\n      ', `\n${indent}      `)}`);
            if (t.comment) rows.push(`# between`);
            rows.push(`${indent}  after: [${t.after.join(', ')}]`);
            if (t.blankAfter) rows.push('');
            return rows.join('\n');
          })
          .join('\n')}\n${trailer}`;
        const parser = new FrontMatterParser();
        expectSameAsWhole(parser, text);
        // The same parser after an edit of one item (its cache of the other items in use).
        if (items.length > 0) {
          const edited = text.replace(`- key: ${(items[pick % items.length] as { key: string }).key}`, '- key: changed-key');
          expectSameAsWhole(parser, edited);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("an alias across todos, a flow list or a duplicate key is parsed whole, with yaml's own message", () => {
    const parser = new FrontMatterParser();
    expectSameAsWhole(parser, 'title: T\ntodos:\n  - key: a\n    title: &t One\n  - key: b\n    title: *t\n');
    expect(parser.stats.mode).toBe('whole');
    expectSameAsWhole(parser, 'title: T\ntodos: [{key: a, title: A}]\n');
    expectSameAsWhole(parser, 'title: T\ntodos:\n  - key: a\n    key: b\n    title: A\n');
    expect(parser.parse('title: T\ntodos:\n  - key: a\n    key: b\n    title: A\n').errors[0]?.message).toMatch(/unique/);
  });

  test('a goal file parsed with a reused parser gives the same diagnostics as a fresh parse', () => {
    const parser = new FrontMatterParser();
    const file = (fm: string) => `---\n${fm}---\n\nBackground.\n`;
    parseGoalFile(file(frontMatter(40)), parser);
    const bad = file(frontMatter(40).replace('    priority: 2\n', '    priorty: 2\n').replace('after: [step-8]', 'after: [step-88]'));
    expect(parseGoalFile(bad, parser).diagnostics).toEqual(parseGoalFile(bad, { parse: parseWhole }).diagnostics);
    expect(parser.stats.itemsParsed).toBe(2);
  });
});

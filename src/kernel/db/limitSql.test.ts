import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';
import { limitSql } from './limitSql';
import { StatementCache } from './sqliteDb';
import { openDb } from './openDb';

const SRC = join(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.ts$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** The lines of src/ (tests and doc comments aside) that match `pattern`, as file:line. */
function linesMatching(pattern: RegExp, except: string[] = []): string[] {
  return sources(SRC)
    .filter((file) => !except.includes(relative(SRC, file)))
    .flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (pattern.test(line) && !line.trim().startsWith('*') ? [`${relative(SRC, file)}:${i + 1}`] : [])),
    );
}

test('no statement in src/ binds its LIMIT or OFFSET: SQLite prepares such a statement again every time it runs', () => {
  expect(linesMatching(/\b(LIMIT|OFFSET) \?/), 'write it in with limitSql (src/kernel/db/limitSql.ts)').toEqual([]);
  // And a number put in by hand goes through the one helper, which writes only whole numbers.
  expect(linesMatching(/\b(LIMIT|OFFSET) \$\{/, ['kernel/db/limitSql.ts']), 'write it in with limitSql').toEqual([]);
});

test('a LIMIT and OFFSET written in select the rows they name, -1 for no limit', () => {
  const db = openDb(':memory:');
  try {
    db.exec('CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT); INSERT INTO t (b) VALUES (1), (2), (3)');
    expect(db.prepare(`SELECT a FROM t ORDER BY a DESC ${limitSql(2)}`).all()).toEqual([{ a: 3 }, { a: 2 }]);
    expect(db.prepare(`SELECT a FROM t ORDER BY a ${limitSql(1, 1)}`).all()).toEqual([{ a: 2 }]);
    expect(db.prepare(`SELECT a FROM t ORDER BY a ${limitSql(-1, 2)}`).all()).toEqual([{ a: 3 }]);
  } finally {
    db.close();
  }
});

test('only whole numbers reach the SQL', () => {
  expect(limitSql(50)).toBe('LIMIT 50');
  expect(limitSql(2.9, 1.5)).toBe('LIMIT 2 OFFSET 1');
  expect(() => limitSql(Number.NaN)).toThrow(/not a whole number/);
  expect(() => limitSql(5, Number.POSITIVE_INFINITY)).toThrow(/not a whole number/);
});

test('a connection keeps its most recently used statements, up to a bound (both drivers use this cache), whatever SQL texts it meets', () => {
  const made: string[] = [];
  const cache = new StatementCache<string>(3);
  const prepare = (sql: string) => (made.push(sql), `stmt:${sql}`);
  for (const sql of ['a', 'b', 'c', 'a', 'd', 'a', 'b']) expect(cache.get(sql, prepare)).toBe(`stmt:${sql}`);
  // 'b' was the least recently used when 'd' came, so it was prepared again; 'a' never was.
  expect(made).toEqual(['a', 'b', 'c', 'd', 'b']);
  expect(cache.count).toBe(3);
});

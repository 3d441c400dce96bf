import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';

/**
 * SQL has one home: src/kernel (each noun's folder with its reducers, and the spine). Every other layer, src/runtime
 * too, asks the kernel by name, so a rule the queries encode (readiness, lease liveness) is never retyped beside a
 * view. Tests may still tamper with a store.
 */
const ROOT = resolve(__dirname, '..', '..');
const SQL = /\.prepare\(|\bdb\.exec\(|\b(SELECT\s+[\w*]|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|PRAGMA\s+\w)/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

function sqlLines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line, i) => (SQL.test(line) ? [`${relative(ROOT, path)}:${i + 1}: ${line.trim()}`] : []));
}

test('the detector sees SQL in the shapes it takes in this code base', () => {
  for (const line of [
    "db.prepare('SELECT 1 FROM todos WHERE id = ?')",
    'const q = `SELECT t.id FROM todos t`;',
    "kernel.db.exec('DELETE FROM gates')",
    "'PRAGMA journal_mode'",
  ]) {
    expect(SQL.test(line), line).toBe(true);
  }
  expect(SQL.test("'Select a todo to claim'")).toBe(false);
});

test('no SQL outside src/kernel', () => {
  const outside = ['src', 'webview-ui/src']
    .flatMap((dir) => sourceFiles(join(ROOT, dir)))
    .filter((p) => !relative(ROOT, p).startsWith(join('src', 'kernel')));
  expect(outside.length).toBeGreaterThan(50);
  expect(outside.flatMap(sqlLines)).toEqual([]);
});

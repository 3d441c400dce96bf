import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { findCycle } from '../../src/shared/findCycle';
import { IMPORT, importsOf } from './relativeImports';

/**
 * No import cycles in src/ or the webview. A cycle is how a layer's wiring goes implicit (a service bag filled in
 * after construction, a module reading another half-initialised): each one found so far hid a rule in two places.
 * Type-only imports count too: they are erased at build time, but a reader still has to open both files to follow
 * either (the last three were kernel.ts with logHealth.ts and team/teamKernel.ts, the board's protocol with its
 * history, a goal file's parse with its lint).
 */
const ROOT = resolve(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [path] : [];
  });
}

test('the walk finds a cycle of imports, type-only ones included', () => {
  const text = "import { a } from './a';\nimport type { B } from './b';\nexport { c } from './c';";
  const imports = [...text.matchAll(IMPORT)].map((m) => m[1]);
  expect(imports).toEqual(['./a', './b', './c']);
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
  ]);
  expect(findCycle(graph.keys(), (n) => graph.get(n) ?? [])).toEqual(['a', 'b', 'c', 'a']);
  expect(findCycle(['a'], (n) => (n === 'a' ? ['b'] : []))).toBeNull();
});

test('no import cycle in src/ or the webview, type imports included', () => {
  const files = ['src', 'webview-ui/src'].flatMap((dir) => sourceFiles(join(ROOT, dir)));
  expect(files.length).toBeGreaterThan(100);
  const graph = new Map(files.map((file) => [file, importsOf(file, readFileSync(file, 'utf8'))]));
  expect(findCycle(graph.keys(), (file) => graph.get(file) ?? [])?.map((file) => relative(ROOT, file)) ?? null).toBeNull();
});

import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';

/**
 * One write path per event kind: each kind is emitted (`tx.emit({ kind: '…' })`, or an `emit` passed down) from one
 * source file, so the rules that guard it live in one place. Two writers of the same event drift apart: goal files
 * created goals beside `goal create` and skipped its range checks (issue 24).
 */
const ROOT = resolve(__dirname, '..', '..');
const EMIT = /\bemit\(\s*\{\s*kind:\s*'([a-z_.]+)'/g;

/**
 * Kinds emitted from more than one file today, each with the files and why: a list that may only shrink. Moving a
 * second writer onto the first one's operation removes its entry (the test fails until the entry goes).
 */
const KNOWN_SECOND_WRITERS: Record<string, { files: string[]; why: string }> = {};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** Event kind → the source files that emit it. */
function emitters(): Map<string, string[]> {
  const byKind = new Map<string, string[]>();
  for (const path of sourceFiles(join(ROOT, 'src'))) {
    for (const [, kind] of readFileSync(path, 'utf8').matchAll(EMIT)) {
      const files = byKind.get(kind as string) ?? [];
      const file = relative(ROOT, path).split('\\').join('/');
      if (!files.includes(file)) byKind.set(kind as string, [...files, file].sort());
    }
  }
  return byKind;
}

test('the detector sees an emit in the shapes it takes in this code base', () => {
  const kinds = (text: string) => [...text.matchAll(EMIT)].map((m) => m[1]);
  expect(kinds("tx.emit({ kind: 'todo.renewed', goalId })")).toEqual(['todo.renewed']);
  expect(kinds("tx.emit(\n    {\n      kind: 'todo.added',\n")).toEqual(['todo.added']);
  expect(kinds("return emit({ kind: 'goal.edited', goalId: id }, KERNEL)")).toEqual(['goal.edited']);
  expect(kinds("const kind: 'todo.added' = 'todo.added';")).toEqual([]);
});

test('every event kind is emitted from one source file, but for the known second writers', () => {
  const byKind = emitters();
  expect(byKind.size).toBeGreaterThan(25);
  const shared = Object.fromEntries([...byKind].filter(([, files]) => files.length > 1).map(([kind, files]) => [kind, files]));
  const known = Object.fromEntries(Object.entries(KNOWN_SECOND_WRITERS).map(([kind, { files }]) => [kind, files]));
  expect(shared).toEqual(known);
});

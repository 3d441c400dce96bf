import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';

/**
 * One write path per event kind: each kind is emitted (`tx.emit({ kind: '…' })`, or an `emit` passed down) from one
 * source file, so the rules that guard it live in one place. Two writers of the same event drift apart: goal files
 * created goals beside `goal create` and skipped its range checks (issue 24).
 */
const ROOT = resolve(__dirname, '..', '..');
/** An event written: `emit({ kind: '…' })` (a unit of work's, or an `emit` passed down) or an appender's `append(`. */
const EMIT = /\b(?:emit|append)\(\s*\{\s*kind:\s*'([a-z_.]+)'/g;

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

/** Event kind → where it is written: each source file, and each place in it (`file:line`). */
function emitters(): { files: Map<string, string[]>; sites: Map<string, string[]> } {
  const files = new Map<string, string[]>();
  const sites = new Map<string, string[]>();
  for (const path of sourceFiles(join(ROOT, 'src'))) {
    const text = readFileSync(path, 'utf8');
    const file = relative(ROOT, path).split('\\').join('/');
    for (const match of text.matchAll(EMIT)) {
      const kind = match[1] as string;
      const line = text.slice(0, match.index).split('\n').length;
      sites.set(kind, [...(sites.get(kind) ?? []), `${file}:${line}`]);
      const known = files.get(kind) ?? [];
      if (!known.includes(file)) files.set(kind, [...known, file].sort());
    }
  }
  return { files, sites };
}

test('the detector sees an emit in the shapes it takes in this code base', () => {
  const kinds = (text: string) => [...text.matchAll(EMIT)].map((m) => m[1]);
  expect(kinds("tx.emit({ kind: 'todo.renewed', goalId })")).toEqual(['todo.renewed']);
  expect(kinds("tx.emit(\n    {\n      kind: 'todo.added',\n")).toEqual(['todo.added']);
  expect(kinds("return emit({ kind: 'goal.edited', goalId: id }, KERNEL)")).toEqual(['goal.edited']);
  expect(kinds("new EventAppender(db, actor, at).append({\n  kind: 'store.initialized',")).toEqual(['store.initialized']);
  expect(kinds("const kind: 'todo.added' = 'todo.added';")).toEqual([]);
});

test('every event kind is emitted from one source file, but for the known second writers', () => {
  const { files } = emitters();
  expect(files.size).toBeGreaterThan(25);
  const shared = Object.fromEntries([...files].filter(([, paths]) => paths.length > 1));
  const known = Object.fromEntries(Object.entries(KNOWN_SECOND_WRITERS).map(([kind, { files }]) => [kind, files]));
  expect(shared).toEqual(known);
});

test('only the kernel writes events: no adapter (CLI, MCP, VS Code, runtime) emits one itself', () => {
  // CONTRIBUTING: adapters call a kernel operation; they never write the store. `loopx run` once wrote its own
  // runner.started/stopped (issue 40).
  const outside = [...emitters().sites].flatMap(([kind, at]) =>
    at.filter((site) => !site.startsWith('src/kernel/')).map((s) => `${kind} ${s}`),
  );
  expect(outside).toEqual([]);
});

test('a new todo is built in one place: todo.added is written at one site, where its id is numbered', () => {
  // A series' next occurrence and `todo add` (and goal files) once each built the event and numbered the id.
  expect(emitters().sites.get('todo.added')).toHaveLength(1);
});

test("a runner's events belong to one noun: runner.started and runner.stopped are declared and reduced in src/kernel/turns/", () => {
  // Issue 40: runner.stopped's schema and reducer sat with hooks, runner.started's with turns. A schema is
  // `'kind': z.…`, a reducer `'kind': (…) =>` (a hook's `case 'runner.stopped':` only reads it).
  const declaring = sourceFiles(join(ROOT, 'src', 'kernel'))
    .filter((path) => /'runner\.(started|stopped)':\s*(z\.|\()/.test(readFileSync(path, 'utf8')))
    .map((path) => relative(ROOT, path).split('\\').join('/'));
  expect(declaring.sort()).toEqual(['src/kernel/turns/turnEventSchemas.ts', 'src/kernel/turns/turnReducers.ts']);
});

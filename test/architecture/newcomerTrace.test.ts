import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { importsOf } from './relativeImports';

/**
 * docs/architecture.md's "Follow one change" lists the steps a board drag passes through until the Goals view shows
 * the owner, each with its file and the step's symbol (a file may hold two steps in a row). The figure in its first
 * sentence is the number of files a newcomer opens, every file exists, and every file still has its step: a file
 * merged away or a step moved elsewhere fails here until the doc follows.
 * The files it says a newcomer reads past are named by path, so a renamed or removed one fails here too, and each must
 * be on the way (opened from a step or from another file read past): a file the change no longer passes through cannot
 * be counted out of the trace.
 */
const ROOT = resolve(__dirname, '..', '..');
const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');

const section = doc.split('## Follow one change')[1]?.split('\n## ')[0] ?? '';

/** The files the paragraph after the trace says a newcomer reads past, by path. */
function readPast(): string[] {
  const after = section.split('```')[2] ?? '';
  return [...new Set([...after.matchAll(/`((?:src|webview-ui)\/[^`\s]+\.ts)`/g)].map((m) => m[1] as string))];
}

function trace(): { stated: number; steps: { file: string; symbol: string }[] } {
  const stated = Number(/: (\d+) files, in the order/.exec(section)?.[1]);
  const block = section.split('```')[1] ?? '';
  const steps = block
    .split('\n')
    .map((line) => /^(\S+\.ts)\s+(\S+)\s/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ file: m[1] as string, symbol: m[2] as string }));
  return { stated, steps };
}

test('the trace in the architecture doc states how many files it opens', () => {
  const { stated, steps } = trace();
  expect(steps.length).toBeGreaterThan(0);
  expect(stated).toBe(new Set(steps.map((s) => s.file)).size);
});

test("a file's steps in the trace are next to each other: a file opened twice counts twice, so it may not be", () => {
  const files = trace().steps.map((s) => s.file);
  const reopened = files.filter((file, i) => i > 0 && files[i - 1] !== file && files.slice(0, i - 1).includes(file));
  expect(reopened).toEqual([]);
});

test('every file of the trace exists and still holds its step', () => {
  const missing = trace().steps.filter(({ file, symbol }) => {
    const path = join(ROOT, file);
    return !existsSync(path) || !readFileSync(path, 'utf8').includes(symbol);
  });
  expect(missing).toEqual([]);
});

test('every file the trace says a newcomer reads past exists, and none of them is also a step', () => {
  const named = readPast();
  expect(named.length).toBeGreaterThan(0);
  expect(named.filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
  const steps = new Set(trace().steps.map((s) => s.file));
  expect(named.filter((file) => steps.has(file))).toEqual([]);
});

test('every file the trace reads past is on the way: a step, or a file read past, opens it', () => {
  const past = readPast();
  const reached = new Set(trace().steps.map((s) => s.file));
  const imports = new Map(
    [...reached, ...past].map((file) => [
      file,
      importsOf(join(ROOT, file), readFileSync(join(ROOT, file), 'utf8')).map((to) => relative(ROOT, to)),
    ]),
  );
  // Opened from a step (a step imports it), or the wiring beside a step (it imports a step of its own folder: the
  // webview's main.ts gives the board its refusal toast).
  const linked = (file: string) =>
    [...reached].some((from) => imports.get(from)?.includes(file)) ||
    (imports.get(file) ?? []).some((to) => reached.has(to) && dirname(to) === dirname(file));
  // Reached from the steps outwards, through files read past (canonical.ts through hashChain.ts, toasts.ts through main.ts).
  for (let grew = true; grew;) {
    const next = past.filter((file) => !reached.has(file) && linked(file));
    for (const file of next) reached.add(file);
    grew = next.length > 0;
  }
  expect(past.filter((file) => !reached.has(file))).toEqual([]);
});

test("the architecture doc's map names every architecture test, by the name of its file", () => {
  const tests = readdirSync(join(ROOT, 'test', 'architecture'))
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => file.replace(/\.test\.ts$/, ''));
  expect(tests.filter((name) => !doc.includes(`(${name})`))).toEqual([]);
});

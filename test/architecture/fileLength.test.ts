import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';

/**
 * No source file over 400 lines (issue 40): a file that long holds two things that change apart (the runner's loop
 * and a turn's start and finish; a webview's message switch and its toasts), and a newcomer cannot hold it in mind.
 * Split it by what changes together. Tests are not held to it (a suite reads top to bottom, one scenario after
 * another).
 */
const ROOT = resolve(__dirname, '..', '..');
const LIMIT = 400;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'fixtures' ? [] : sources(path);
    return /\.(ts|tsx|mts|mjs)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

test(`no source file in src/, webview-ui/src/, bench/ or scripts/ is over ${LIMIT} lines`, () => {
  const files = ['src', 'webview-ui/src', 'bench', 'scripts'].flatMap((dir) => sources(join(ROOT, dir)));
  expect(files.length).toBeGreaterThan(300);
  const long = files
    .map((file) => ({ file: relative(ROOT, file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > LIMIT)
    .map(({ file, lines }) => `${file}: ${lines} lines`);
  expect(long).toEqual([]);
});

import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';

/**
 * The fast tier (vitest.config.mts, project `unit`; `npm run test:fast`) builds nothing, so a test there that runs
 * the built CLI would fail on a clean checkout, or pass on a stale dist/. Such a test belongs with the process suites.
 * The folders below are vitest.config.mts's PROCESS_SUITES.
 */
const ROOT = resolve(__dirname, '..', '..');
const PROCESS = [
  'test/cli/',
  'test/agents/',
  'test/languageServer/',
  'test/soak/',
  'test/team/',
  'test/e2e/',
  'test/extension/',
  'test/package.test.ts',
  'test/release.test.ts',
];
const BUILT = /join\([^)]*'(bin|dist)'|['"`](\.\/)?(bin\/loopx|dist\/)/;

function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

test('the detector sees a path into the build in the shapes tests write it', () => {
  for (const line of [
    "join(__dirname, '..', '..', 'bin', 'loopx')",
    "join(REPO, 'dist', 'cli.js')",
    "spawnSync('bin/loopx', [])",
    'readFileSync(`dist/x.js`)',
  ])
    expect([line, BUILT.test(line)]).toEqual([line, true]);
  for (const line of ["commandPrefix('claude', '/usr/local/bin/loopx')", "const distance = 'x'"])
    expect([line, BUILT.test(line)]).toEqual([line, false]);
});

test('no test of the fast tier runs what npm run build makes', () => {
  const unit = ['src', 'scripts', 'test']
    .flatMap(testFiles)
    .filter((file) => !PROCESS.some((p) => file.startsWith(p)) && file !== 'test/architecture/fastTier.test.ts');
  expect(unit.length).toBeGreaterThan(50);
  const found = unit.flatMap((file) =>
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .flatMap((line, i) => (BUILT.test(line) ? [`${relative(ROOT, join(ROOT, file))}:${i + 1}: ${line.trim()}`] : [])),
  );
  expect(found).toEqual([]);
});

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { LOOPX, REPO, cleanEnv } from './harness';

/**
 * Node 22's compile cache keeps compiled code that the next process runs in place of the file, checked only by the
 * file's length and checksums anyone can recompute. Its default folder is the temp folder, which Codex's sandbox lets
 * its agent write. These tests plant there, for the bundle `loopx status` loads, an entry whose code is someone
 * else's, prove the plant works (Node run on that folder runs it), and hold loopx to never running it.
 */
// Node 22 from the npm registry (scripts/nodeRelease.mjs, installed on first use): Node 20 has no compile cache.
const node22 = execFileSync(process.execPath, [join(REPO, 'scripts', 'nodeRelease.mjs'), '22'], { encoding: 'utf8' }).trim();
const BUNDLE = join(REPO, 'dist', 'agent', 'status.js');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopx-compile-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Entries of a compile cache folder (one folder per Node build inside). */
function entries(cache: string): string[] {
  if (!existsSync(cache)) return [];
  return readdirSync(cache).flatMap((build) => readdirSync(join(cache, build)).map((name) => join(cache, build, name)));
}

/**
 * Writes into `temp`/node-compile-cache an entry for `bundle` whose code writes `marker`: Node's entry for code of the
 * same length, with the bundle's content hash in its header (bytes 12-15), under the name Node gives the bundle's.
 */
function plant(bundle: string, temp: string, marker: string): void {
  const size = statSync(bundle).size;
  const head = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'planted'); module.exports = { main: Function.prototype };\n`;
  const evil = join(dir, 'evil', 'planted.js');
  mkdirSync(join(dir, 'evil'), { recursive: true });
  writeFileSync(evil, `${head}/*${' '.repeat(size - head.length - 4)}*/`);
  const entryOf = (file: string) => {
    const cache = mkdtempSync(join(dir, 'scratch-'));
    execFileSync(node22, ['-e', `require(${JSON.stringify(file)})`], { env: { ...process.env, NODE_COMPILE_CACHE: cache } });
    const found = entries(cache).filter((path) => readFileSync(path).readUInt32LE(4) === size);
    expect(found, `one entry of ${size} bytes of code for ${file}`).toHaveLength(1);
    return found[0] as string;
  };
  const real = entryOf(bundle);
  const forged = readFileSync(entryOf(evil));
  forged.writeUInt32LE(readFileSync(real).readUInt32LE(12), 12);
  const into = join(temp, 'node-compile-cache', real.split('/').at(-2) as string);
  mkdirSync(into, { recursive: true });
  writeFileSync(join(into, real.split('/').at(-1) as string), forged);
}

function loopx22(args: string[], env: Record<string, string>, cwd: string) {
  return spawnSync(node22, [LOOPX, ...args], { cwd, encoding: 'utf8', env: cleanEnv({ LOOPX_SQLITE_DRIVER: 'node', ...env }) });
}

test('code planted in the temp folder for a loopx bundle runs when Node reads that folder, and never as loopx', () => {
  const temp = join(dir, 'tmp');
  const home = join(dir, 'home');
  const ws = join(dir, 'ws');
  for (const d of [temp, home, ws]) mkdirSync(d);
  const marker = join(dir, 'planted-code-ran');
  plant(BUNDLE, temp, marker);

  // The plant is real: Node's default compile cache (the temp folder) runs it in place of the bundle.
  execFileSync(node22, ['-e', `require('node:module').enableCompileCache(); require(${JSON.stringify(BUNDLE)})`], {
    env: { ...process.env, TMPDIR: temp },
  });
  expect(existsSync(marker)).toBe(true);
  rmSync(marker);

  const env = { TMPDIR: temp, HOME: home, XDG_CACHE_HOME: '' };
  expect(loopx22(['init'], env, ws).status).toBe(0);
  const status = loopx22(['status', '--json'], env, ws);
  expect(status.status, status.stderr).toBe(0);
  expect((JSON.parse(status.stdout) as { ok: boolean }).ok).toBe(true);
  expect(existsSync(marker)).toBe(false);
  // The cache still works, in the user's cache folder.
  expect(entries(join(home, '.cache', 'loopx', 'compile-cache')).length).toBeGreaterThan(0);
});

test('a cache folder inside a loopx workspace (which its agents may write) is not used at all', () => {
  const ws = join(dir, 'ws');
  const temp = join(dir, 'tmp');
  mkdirSync(ws);
  mkdirSync(temp);
  const env = { TMPDIR: temp, HOME: join(dir, 'home'), XDG_CACHE_HOME: join(ws, 'cache') };
  expect(loopx22(['init'], env, ws).status).toBe(0);
  expect(loopx22(['status', '--json'], env, ws).status).toBe(0);
  expect(existsSync(join(ws, 'cache'))).toBe(false);
  expect(existsSync(join(temp, 'node-compile-cache'))).toBe(false);
});

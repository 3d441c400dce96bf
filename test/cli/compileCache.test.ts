import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
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

describe("Node 20 (a checkout's): bin/loopx keeps V8's code cache for every bundle itself", () => {
  const CLI = join(REPO, 'dist', 'cli.js');
  /** The cache files bin/loopx keeps in `home`'s cache folder for the bundle named `name` (one per bundle path). */
  const cachesOf = (home: string, name: string) => {
    const folder = join(home, '.cache', 'loopx', 'compile-cache');
    if (!existsSync(folder)) return [];
    return readdirSync(folder)
      .filter((file) => file.startsWith(`node20-${name}-`) && !file.includes('.'))
      .map((file) => join(folder, file));
  };
  /** The one cache file for `name`'s bundle; its first line is the stamp: the bundle's path and file identity. */
  function cacheOf(home: string, name: string): string {
    const found = cachesOf(home, name);
    expect(found, `one cache file for ${name}`).toHaveLength(1);
    return found[0] as string;
  }
  const stampOf = (cache: Buffer) => JSON.parse(cache.subarray(0, cache.indexOf(10)).toString()) as string[];
  function loopx20(args: string[], env: Record<string, string>, cwd: string, bin = LOOPX) {
    expect(process.versions.node, 'this suite runs the CLI on the test runner’s Node, which must be 20').toMatch(/^20\./);
    return spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', env: cleanEnv(env) });
  }
  function folders() {
    const [temp, home, ws] = ['tmp', 'home', 'ws'].map((name) => join(dir, name)) as [string, string, string];
    for (const d of [temp, home, ws]) mkdirSync(d);
    return { ws, home, env: { TMPDIR: temp, HOME: home, XDG_CACHE_HOME: '' } };
  }

  test('the first command writes it, stamped with the bundle’s file; the next uses it as it is', () => {
    const { ws, home, env } = folders();
    expect(loopx20(['init'], env, ws).status).toBe(0);
    expect(cachesOf(home, 'cli')).toEqual([]); // init has a bundle of its own (dist/command/init.js)
    expect(loopx20(['--help'], env, ws).status).toBe(0); // the whole CLI's
    const cache = cacheOf(home, 'cli');
    const written = readFileSync(cache);
    const file = statSync(CLI, { bigint: true });
    expect(stampOf(written)).toEqual([
      CLI,
      String(file.dev),
      String(file.ino),
      String(file.size),
      String(file.ctimeNs),
      String(file.mtimeNs),
    ]);
    expect(written.length).toBeGreaterThan(100_000); // V8's code for the bundle and what the call compiled
    const version = loopx20(['--version'], env, ws);
    expect([version.status, version.stderr]).toEqual([0, '']);
    expect(readFileSync(cache).equals(written), 'V8 took the cache: not written again').toBe(true);
  });

  test('an agent verb’s own bundle gets one too, used by its next call', () => {
    const { ws, home, env } = folders();
    expect(loopx20(['init'], env, ws).status).toBe(0);
    expect(cachesOf(home, 'status')).toEqual([]);
    expect(loopx20(['status', '--json'], env, ws).status).toBe(0);
    const cache = cacheOf(home, 'status');
    const written = readFileSync(cache);
    expect(stampOf(written)[0]).toBe(BUNDLE);
    expect(written.length).toBeGreaterThan(50_000);
    const again = loopx20(['status', '--json'], env, ws);
    expect([again.status, (JSON.parse(again.stdout) as { ok: boolean }).ok]).toEqual([0, true]);
    expect(readFileSync(cache).equals(written), 'V8 took the cache: not written again').toBe(true);
  });

  test('a rebuilt bundle of the very same length runs its own code, never the cached one', () => {
    // An install of its own (bin/loopx and the bundles), so that its bundle can be rebuilt under the suite's feet.
    const install = join(dir, 'install');
    mkdirSync(join(install, 'bin'), { recursive: true });
    writeFileSync(join(install, 'bin', 'loopx'), readFileSync(LOOPX));
    mkdirSync(join(install, 'dist', 'agent'), { recursive: true });
    const bundle = join(install, 'dist', 'agent', 'status.js');
    writeFileSync(bundle, readFileSync(BUNDLE));
    const { ws, home, env } = folders();
    const help = () => {
      const run = loopx20(['status', '--help'], env, ws, join(install, 'bin', 'loopx'));
      expect(run.status, run.stderr).toBe(0);
      return run.stdout;
    };
    expect(help()).toContain('the attention queue');
    const cache = cacheOf(home, 'status');
    const first = readFileSync(cache);
    // V8 checks a cache against its source's length only: same length, other words.
    const text = readFileSync(bundle, 'utf8');
    expect(text).toContain('the attention queue');
    writeFileSync(bundle, text.replace('the attention queue', 'THE REBUILT QUEUE!!'));
    expect(statSync(bundle).size).toBe(Buffer.byteLength(text));
    expect(help()).toContain('THE REBUILT QUEUE!!');
    const second = readFileSync(cache);
    expect(second.equals(first), 'written again for the new build').toBe(false);
    expect(stampOf(second)[0]).toBe(bundle);
  });

  test('one stamped for another build, or damaged, is not used and is written again', () => {
    const { ws, home, env } = folders();
    expect(loopx20(['init'], env, ws).status).toBe(0);
    const cache = cacheOf(home, 'init');
    const good = readFileSync(cache);
    const stampLength = good.indexOf(10) + 1;
    const otherBuild = Buffer.from(`${JSON.stringify([stampOf(good)[0], '1', '2', '3', '4', '5'])}\n`);
    for (const bad of [Buffer.concat([otherBuild, good.subarray(stampLength)]), good.subarray(0, 5000)]) {
      writeFileSync(cache, bad);
      const again = loopx20(['init', '--json'], env, ws); // the store is there already: init says so, and changes nothing
      expect([again.status, again.stderr]).toEqual([0, '']);
      expect(readFileSync(cache).subarray(0, stampLength).equals(good.subarray(0, stampLength))).toBe(true);
      expect(readFileSync(cache).length).toBeGreaterThan(50_000);
    }
  });

  test('a cache folder that cannot be written (an agent’s sandbox, a full disk) leaves the command as it was', () => {
    const { ws, env } = folders();
    const blocked = join(dir, 'a-file');
    writeFileSync(blocked, ''); // a folder under a file cannot be made, even by root (CI's user)
    const unwritable = { ...env, XDG_CACHE_HOME: join(blocked, 'cache') };
    expect(loopx20(['init'], unwritable, ws).status).toBe(0);
    const history = loopx20(['history', '--json'], unwritable, ws);
    expect([history.status, history.stderr]).toEqual([0, '']);
    expect((JSON.parse(history.stdout) as { ok: boolean }).ok).toBe(true);
  });

  test('no cache at all where agents may write: a folder in the workspace or the temp folder', () => {
    const { ws, env } = folders();
    const inWorkspace = { ...env, XDG_CACHE_HOME: join(ws, 'cache') };
    expect(loopx20(['init'], inWorkspace, ws).status).toBe(0);
    expect(loopx20(['history', '--json'], inWorkspace, ws).status).toBe(0);
    expect(existsSync(join(ws, 'cache'))).toBe(false);
    const inTemp = { ...env, XDG_CACHE_HOME: env.TMPDIR };
    expect(loopx20(['history', '--json'], inTemp, ws).status).toBe(0);
    expect(readdirSync(env.TMPDIR)).toEqual([]);
  });
});

import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { LOOPX_VERSION } from '../shared/version';
import { cliVersions, cliVersionsCheck } from './cliVersions';

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'loopx-clis-'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** A folder holding a `loopx` that answers `--version --json` with `version` (or prints `raw`), as an install would. */
function install(folder: string, answer: { version: string } | { raw: string }): string {
  const dir = join(base, folder);
  mkdirSync(dir, { recursive: true });
  const out = 'raw' in answer ? answer.raw : JSON.stringify({ ok: true, data: { version: answer.version } });
  const file = join(dir, 'loopx');
  writeFileSync(file, `#!/bin/sh\nprintf '%s' '${out}'\n`);
  chmodSync(file, 0o755);
  return dir;
}

test('every loopx on PATH is asked its version, in PATH order, each file once; the same version everywhere is fine', async () => {
  const a = install('a', { version: LOOPX_VERSION });
  const b = join(base, 'b');
  mkdirSync(b);
  symlinkSync(join(a, 'loopx'), join(b, 'loopx')); // the same file again: listed once
  const found = await cliVersions([a, b, a, join(base, 'missing')].join(delimiter), '/nowhere', '/nowhere/bin/loopx');
  expect(found).toEqual([{ path: join(a, 'loopx'), version: LOOPX_VERSION, self: false }]);
  expect(cliVersionsCheck(found)).toEqual({ level: 'ok', detail: `loopx ${LOOPX_VERSION}: the one on PATH (${join(a, 'loopx')})` });
});

test('versions that differ are a warning naming each, first to last, and what to do', async () => {
  const older = install('older', { version: '0.0.1' });
  const odd = install('odd', { raw: 'not json' });
  const found = await cliVersions([older, odd].join(delimiter), '/nowhere', '/nowhere/bin/loopx');
  expect(found.map((f) => f.version)).toEqual(['0.0.1', null]);
  const check = cliVersionsCheck(found);
  expect(check.level).toBe('warn');
  expect(check.detail).toBe(
    `loopx versions differ: this one is ${LOOPX_VERSION}; on PATH, first to last: 0.0.1 at ${join(older, 'loopx')}; ` +
      `a version it did not say at ${join(odd, 'loopx')}. A newer one migrates the store and an older one then refuses it: update or remove the older ones (\`loopx update plan\`, run with each, says how it was installed and how to update it)`,
  );
});

test('a relative folder on PATH (the workspace an agent writes) is never searched, so nothing in it is run', async () => {
  const planted = install('planted', { version: '6.6.6' });
  // Named relative to where this process runs, it would resolve to the planted loopx: it is not looked at.
  const found = await cliVersions([relative(process.cwd(), planted), '.'].join(delimiter), '/nowhere', '/nowhere/bin/loopx');
  expect(found).toEqual([]);
  // The same folder named absolutely is searched (and its loopx asked).
  expect((await cliVersions(planted, '/nowhere', '/nowhere/bin/loopx')).map((f) => f.version)).toEqual(['6.6.6']);
});

test('a loopx in a folder inside the workspace (agents write there) is named, never run, and warned about', async () => {
  const planted = install('workspace/node_modules/.bin', { version: '6.6.6' });
  const found = await cliVersions(planted, join(base, 'workspace'), '/nowhere/bin/loopx');
  expect(found).toEqual([{ path: join(planted, 'loopx'), version: null, self: false, inWorkspace: true }]);
  expect(cliVersionsCheck(found)).toEqual({
    level: 'warn',
    detail:
      `loopx versions differ: this one is ${LOOPX_VERSION}; on PATH, first to last: a version not asked (inside this workspace, ` +
      `which agents can write) at ${join(planted, 'loopx')}. A newer one migrates the store and an older one then refuses it: update or remove the older ones (\`loopx update plan\`, run with each, says how it was installed and how to update it)`,
  });
  // A workspace at the file system's root holds nothing back (it would hold every folder).
  expect((await cliVersions(planted, '/', '/nowhere/bin/loopx')).map((f) => f.version)).toEqual(['6.6.6']);
});

test('this process’s own file is not run: its version is known', async () => {
  // It would say 9.9.9 if it were run.
  const self = install('self', { version: '9.9.9' });
  const found = await cliVersions(self, '/nowhere', join(self, 'loopx'));
  expect(found).toEqual([{ path: join(self, 'loopx'), version: LOOPX_VERSION, self: true }]);
  expect(cliVersionsCheck(found).level).toBe('ok');
});

test('no loopx on PATH is said, with where agents get one', () => {
  expect(cliVersionsCheck([])).toEqual({
    level: 'ok',
    detail: `this loopx is ${LOOPX_VERSION}; no loopx on PATH (agents in terminals need one: docs/install.md)`,
  });
});

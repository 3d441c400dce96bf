import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { REPO, cleanEnv } from './harness';

/**
 * A runtime that can open no store (Node 20 without better-sqlite3 beside loopx, as the npm package is installed)
 * is said first: not "run loopx init" in a folder without a store, and no MCP server that connects and then fails every
 * call. The copy of bin/ and dist/ has no node_modules; LOOPX_SQLITE_DRIVER=better asks for the driver it lacks on any
 * runtime (on Node 20 the same happens without asking).
 */
const install = mkdtempSync(join(tmpdir(), 'loopx-no-driver-'));
const folder = mkdtempSync(join(tmpdir(), 'loopx-no-store-'));
afterAll(() => [install, folder].forEach((d) => rmSync(d, { recursive: true, force: true })));
cpSync(join(REPO, 'bin'), join(install, 'bin'), { recursive: true });
cpSync(join(REPO, 'dist'), join(install, 'dist'), {
  recursive: true,
  filter: (src) => !/dist\/(test|bench|cli-package|scripts|webview)|\.vsix$|\.tgz$/.test(src),
});
/** What this runtime lacks: node:sqlite on Node 20, else the better-sqlite3 it was asked to use. */
const NO_DRIVER = process.versions.node.startsWith('20.')
  ? /loopx needs Node 22\.13 or newer: .* which Node 20\.\d+\.\d+ lacks/
  : /better-sqlite3 was asked for \(LOOPX_SQLITE_DRIVER\) but is not installed beside loopx/;
const run = (args: string[]) =>
  spawnSync(process.execPath, [join(install, 'bin', 'loopx'), ...args], {
    cwd: folder,
    env: cleanEnv({ LOOPX_SQLITE_DRIVER: 'better', LOOPX_AGENT: 'codex' }),
    encoding: 'utf8',
    timeout: 20_000,
    input: '',
  });

test('without a driver, a command in a folder without a store says the runtime, not "run loopx init"', () => {
  for (const args of [
    ['status', '--json'],
    ['todo', 'next', '--json'],
  ]) {
    const r = run(args);
    expect(r.status, args.join(' ')).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      error: { code: 'driver_unavailable', message: NO_DRIVER, hint: expect.stringContaining('Node 22.13') },
    });
  }
  // Help and the version need no store.
  expect(run(['--version']).status).toBe(0);
  expect(run(['status', '--help']).status).toBe(0);
});

test('without a driver, loopx mcp refuses to start, in words, instead of serving tools that all fail', () => {
  const r = run(['mcp']);
  expect(r.status).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(new RegExp(`^loopx mcp: ${NO_DRIVER.source}`, 'm'));
  expect(r.stderr).toContain('hint: install Node 22.13 or newer');
});

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { agent, bareHuman, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo } from '../todos/todos';
import { runEvidence } from '../evidence/evidenceRun';
import { addMonitor } from '../monitors/monitors';
import { tickMonitors } from '../monitors/tick';
import { verifyChain } from '../events/verify';
import { planCheckSandbox, sandboxForPeople, sandboxSentence } from './checkSandbox';

/**
 * A check loopx runs unattended runs code an agent could have changed, so it runs no wider than the agent: these
 * checks try what an agent's own host keeps from it (the store, another host's settings, the rest of the disk, and
 * for an acceptance check the network) next to their ordinary work, which must still succeed.
 */
const here = planCheckSandbox({ purpose: 'acceptance', env: process.env, actorKind: 'human', writable: [tmpdir()] }).sandbox;
const missing = here.kind === 'bubblewrap' ? null : here.reason;
// Said, never a silent pass: where bwrap cannot run, the sandbox's tests are skipped with the reason in their name,
// except in CI, whose machine installs bubblewrap (.ci/run): there its absence fails.
const inCi = process.env.CI === 'true';
if (missing && !inCi) console.warn(`checkSandbox.test.ts: the sandbox's tests are SKIPPED here: ${missing}`);
const withBwrap = missing && !inCi ? describe.skip : describe;
const skipped = missing && !inCi ? ` (SKIPPED: ${missing})` : '';

let s: TestStore;
let outside: string;
/** The person's key folder, outside /tmp (which the sandbox replaces anyway) as it is on a person's machine. */
let keyDir: string;
let keyDirBefore: string | undefined;
let server: Server;
let port = 0;
let connections = 0;
beforeAll(async () => {
  server = createServer((socket) => {
    connections++;
    socket.on('error', () => undefined);
    socket.end('hello\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  s = makeStore();
  // Outside the workspace and outside /tmp (which the sandbox replaces with its own), where the disk is read-only.
  outside = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'loopx-outside-'));
  mkdirSync(join(s.root, '.claude'));
  writeFileSync(join(s.root, '.claude', 'settings.json'), '{}\n');
  writeFileSync(join(s.root, '.mcp.json'), '{}\n');
  writeFileSync(join(s.root, 'README.md'), 'the workspace\n');
  keyDir = join(outside, 'config');
  mkdirSync(keyDir);
  writeFileSync(join(keyDir, 'human-key'), `${'5'.repeat(64)}\n`, { mode: 0o600 });
  keyDirBefore = process.env.LOOPX_CONFIG_DIR;
  process.env.LOOPX_CONFIG_DIR = keyDir;
  connections = 0;
});
afterEach(() => {
  process.env.LOOPX_CONFIG_DIR = keyDirBefore;
  s.dispose();
  rmSync(outside, { recursive: true, force: true });
});

/** Each attempt prints `NAME:ok` or `NAME:refused`; a connection to the test's server prints `net:ok`. */
function attempts(): string {
  const net = `"${process.execPath}" -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>{console.log('net:ok');process.exit(0)}).on('error',()=>{console.log('net:refused');process.exit(0)})"`;
  const attempt = (name: string, command: string) => `if { ${command}; } 2>/dev/null; then echo ${name}:ok; else echo ${name}:refused; fi`;
  return [
    attempt('read', 'grep -q workspace README.md'),
    attempt('write', 'echo made > made.txt'),
    attempt('store', 'true >> .loopx/loopx.db'),
    attempt('plant', 'echo x > .loopx/planted'),
    attempt('claude', `echo '{"hooks":{}}' > .claude/settings.json`),
    attempt('mcp', `echo '{"mcpServers":{}}' > .mcp.json`),
    attempt('outside', `echo x > '${outside}/planted'`),
    attempt('key', `cat '${keyDir}/human-key' > /dev/null`),
    net,
  ].join('; ');
}

function untouched(): void {
  expect(readFileSync(join(s.root, 'made.txt'), 'utf8')).toBe('made\n');
  expect(existsSync(join(s.root, '.loopx', 'planted'))).toBe(false);
  expect(readFileSync(join(s.root, '.claude', 'settings.json'), 'utf8')).toBe('{}\n');
  expect(readFileSync(join(s.root, '.mcp.json'), 'utf8')).toBe('{}\n');
  expect(existsSync(join(outside, 'planted'))).toBe(false);
  expect(verifyChain(s.kernel.db).ok).toBe(true);
}

test(`bubblewrap can sandbox checks on this machine (required in CI)${skipped}`, (ctx) => {
  if (missing && !inCi) ctx.skip();
  expect(here, 'CI installs bubblewrap (.ci/run): checks must run sandboxed there').toMatchObject({ kind: 'bubblewrap' });
});

withBwrap(`a check in the sandbox${skipped}`, () => {
  test("an acceptance check reads and writes the workspace, but not the store, another host's settings, the disk outside, your key, or the network", async () => {
    const goalId = createGoal(s.kernel, { title: 'Parser', check: attempts() }).id;
    const todoId = addTodo(s.kernel, { goalId, title: 'parse' }).id;
    const { evidence, result } = await runEvidence(s.as(agent('codex')), { todoId, check: true });
    expect(result.outputTail.trim().split('\n')).toEqual([
      'read:ok',
      'write:ok',
      'store:refused',
      'plant:refused',
      'claude:refused',
      'mcp:refused',
      'outside:refused',
      'key:refused',
      'net:refused',
    ]);
    expect(connections).toBe(0);
    untouched();
    expect(evidence.run).toMatchObject({ exitCode: 0, sandbox: { kind: 'bubblewrap', network: false } });
    expect(evidence.run?.sandbox?.reason).toContain('writable except .loopx, .claude, .codex, .mcp.json');
  });

  test('a monitor check is refused the same writes but keeps the network (it may watch CI)', async () => {
    const goalId = createGoal(s.kernel, { title: 'Deploy' }).id;
    const todoId = addTodo(s.kernel, { goalId, title: 'wait for CI' }).id;
    addMonitor(s.kernel, { todoId, check: attempts(), everySeconds: 60 });
    const tick = await tickMonitors(s.kernel);
    expect(tick.runs).toMatchObject([{ exitCode: 0, sandbox: { kind: 'bubblewrap', network: true } }]);
    const data = JSON.parse(String(s.kernel.db.prepare(`SELECT data FROM events WHERE kind = 'monitor.checked'`).get()?.data)) as {
      outputTail: string;
      sandbox: unknown;
    };
    expect(data.outputTail.trim().split('\n')).toEqual([
      'read:ok',
      'write:ok',
      'store:refused',
      'plant:refused',
      'claude:refused',
      'mcp:refused',
      'outside:refused',
      'key:refused',
      'net:ok',
    ]);
    expect(data.sandbox).toMatchObject({ kind: 'bubblewrap', network: true });
    expect(connections).toBe(1);
    untouched();
  });

  test("LOOPX_CHECK_SANDBOX=off is a person's: an agent's process that sets it still gets the sandbox, and is told so", async () => {
    const goalId = createGoal(s.kernel, { title: 'Parser', check: attempts() }).id;
    const todoId = addTodo(s.kernel, { goalId, title: 'parse' }).id;
    const env = { ...process.env, LOOPX_CHECK_SANDBOX: 'off' };
    const { evidence } = await runEvidence(s.as(agent('codex')), { todoId, check: true, env });
    expect(evidence.run?.sandbox).toMatchObject({ kind: 'bubblewrap', reason: expect.stringContaining('ignored') });
    expect(evidence.run?.outputTail).toContain('plant:refused');
    untouched();
  });
});

describe('where there is no sandbox, the check runs as before and that is said', () => {
  test('without bwrap on PATH the acceptance check runs unsandboxed, and its evidence says so', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'loopx-nobwrap-'));
    try {
      const goalId = createGoal(s.kernel, { title: 'Parser', check: 'echo ran > ran.txt; echo x > .loopx/planted' }).id;
      const todoId = addTodo(s.kernel, { goalId, title: 'parse' }).id;
      const { evidence } = await runEvidence(s.as(agent('codex')), { todoId, check: true, env: { ...process.env, PATH: bin } });
      expect(evidence.run?.sandbox).toEqual({ kind: 'none', network: true, reason: 'bwrap (bubblewrap) was not found on PATH' });
      expect(existsSync(join(s.root, 'ran.txt'))).toBe(true);
      expect(existsSync(join(s.root, '.loopx', 'planted'))).toBe(true);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  test('where bwrap cannot make its namespaces (user namespaces refused), the check runs unsandboxed and says why', async () => {
    // A bwrap that fails as a real one does where unprivileged user namespaces are turned off.
    const bin = mkdtempSync(join(tmpdir(), 'loopx-refusing-bwrap-'));
    try {
      writeFileSync(join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', { mode: 0o755 });
      const goalId = createGoal(s.kernel, { title: 'Parser', check: 'echo ran > ran.txt' }).id;
      const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
      const { evidence } = await runEvidence(s.as(agent('codex')), { goalId, check: true, env });
      expect(evidence.run?.sandbox).toEqual({
        kind: 'none',
        network: true,
        reason: `${join(bin, 'bwrap')} cannot create its namespaces here (bwrap: No permissions to create new namespace)`,
      });
      expect(existsSync(join(s.root, 'ran.txt'))).toBe(true);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  test('a person who sets LOOPX_CHECK_SANDBOX=off for the ticker gets checks without a sandbox, said in the log', async () => {
    const goalId = createGoal(s.kernel, { title: 'Deploy' }).id;
    const todoId = addTodo(s.kernel, { goalId, title: 'wait for CI' }).id;
    addMonitor(s.kernel, { todoId, check: 'echo x > .loopx/planted', everySeconds: 60 });
    const tick = await tickMonitors(s.as(bareHuman), { env: { ...process.env, LOOPX_CHECK_SANDBOX: 'off' } });
    expect(tick.runs[0]?.sandbox).toMatchObject({ kind: 'none', reason: expect.stringContaining('a person turned the sandbox off') });
    expect(existsSync(join(s.root, '.loopx', 'planted'))).toBe(true);
  });

  test('another platform than Linux has no sandbox for checks yet, and the plan says which', () => {
    const plan = planCheckSandbox({ purpose: 'monitor', env: process.env, actorKind: 'human', writable: [s.root], platform: 'darwin' });
    expect(plan).toMatchObject({ sandbox: { kind: 'none', network: true, reason: 'loopx has no sandbox for checks on darwin' } });
    expect(plan.wrapper).toBeUndefined();
  });

  test('the words for people say which, and why there is none', () => {
    const none = { kind: 'none' as const, network: true, reason: 'bwrap (bubblewrap) was not found on PATH' };
    expect(sandboxForPeople(none)).toBe(
      'It runs without a sandbox, with your access to every file and the network (bwrap (bubblewrap) was not found on PATH).',
    );
    expect(sandboxSentence(none)).toBe(
      'Checks run without a sandbox here, with your full access: bwrap (bubblewrap) was not found on PATH.',
    );
    const boxed = { kind: 'bubblewrap' as const, network: true, reason: '' };
    expect(sandboxForPeople(boxed)).toMatch(/^It runs in a sandbox \(bubblewrap\): .*\.loopx, \.claude, \.codex, \.mcp\.json.*network\.$/);
    expect(sandboxSentence({ ...boxed, network: false })).toMatch(
      /writable except \.loopx, \.claude, \.codex, \.mcp\.json, \.vscode.*; no network\.$/,
    );
  });
});

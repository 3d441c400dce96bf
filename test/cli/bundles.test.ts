import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { REPO, cleanEnv, loopx, startGoal, workspace } from './harness';

/**
 * bin/loopx loads the agent bundle (dist/cli-agent.js) first and the whole CLI (dist/cli.js) only for what it
 * declines. Proven on a copy of the install: with the whole CLI taken away, an agent's turn still runs; a person's
 * command and help then fail with the missing file named.
 */
let install: string;
let ws: ReturnType<typeof workspace>;

const run = (args: string[], agent = 'codex') =>
  spawnSync(process.execPath, [join(install, 'bin', 'loopx'), ...args], {
    cwd: ws.root,
    env: cleanEnv({ LOOPX_AGENT: agent }),
    encoding: 'utf8',
  });

beforeAll(() => {
  install = mkdtempSync(join(tmpdir(), 'loopx-install-'));
  mkdirSync(join(install, 'dist'));
  cpSync(join(REPO, 'bin'), join(install, 'bin'), { recursive: true });
  cpSync(join(REPO, 'dist', 'cli-agent.js'), join(install, 'dist', 'cli-agent.js'));
  symlinkSync(join(REPO, 'node_modules'), join(install, 'node_modules')); // better-sqlite3's addon, on Node 20
  ws = workspace();
  loopx(['init', '--json'], { cwd: ws.root });
  loopx(['goal', 'create', '--title', 'Ship it', '--json'], { cwd: ws.root });
  startGoal(ws.root);
  loopx(['todo', 'add', '--goal', 'G1', '--title', 'Write the parser', '--json'], { cwd: ws.root });
});

afterAll(() => {
  ws.dispose();
  rmSync(install, { recursive: true, force: true });
});

test('an agent’s turn runs on the agent bundle alone: claim, evidence, ship, status', () => {
  const answers = [
    run(['todo', 'claim', '--next', '--json']),
    run(['evidence', 'add', '--todo', 'T1', '--summary', 'parser tests pass', '--json']),
    run(['todo', 'ship', 'T1', '--evidence', 'parser tests pass', '--json']),
    run(['status', '--json']),
  ];
  expect(answers.map((a) => [a.status, JSON.parse(a.stdout).ok])).toEqual([
    [0, true],
    [0, true],
    [0, true],
    [0, true],
  ]);
  expect(JSON.parse(answers[2]?.stdout ?? '{}').data.status).toBe('shipped');
});

test('what the agent bundle declines goes to the whole CLI, here missing: help and a person’s command', () => {
  for (const args of [['--version'], ['gate', 'approve', 'Q1'], ['doctor', '--json']]) {
    const r = run(args);
    expect([args, r.status, r.stderr]).toEqual([
      args,
      1,
      'loopx: dist/cli.js is missing; run `npm run build` in the loopx checkout first\n',
    ]);
  }
});

test('each bundle keeps a code cache per command, written by the first successful call', () => {
  const caches = () => readdirSync(join(install, 'dist')).filter((f) => f.endsWith('.cache'));
  expect(caches().filter((f) => f.includes('.todo-list.'))).toEqual([]);
  const first = run(['todo', 'list', '--json']);
  const cached = caches().filter((f) => f.startsWith(`cli-agent.js.${process.versions.v8}.todo-list.`));
  expect(cached).toHaveLength(1);
  const second = run(['todo', 'list', '--json']); // through the cache
  expect([second.status, second.stdout]).toEqual([0, first.stdout]);
  run(['todo', 'show', 'T404', '--json']); // a failing call leaves no cache of its own
  expect(existsSync(join(install, 'dist', `cli-agent.js.${process.versions.v8}.todo-show.cache`))).toBe(false);
});

test('LOOPX_TIMING=1 adds one line of timings on stderr (what npm run bench reads); without it stderr stays empty', () => {
  const timed = spawnSync(process.execPath, [join(install, 'bin', 'loopx'), 'todo', 'list', '--json'], {
    cwd: ws.root,
    env: cleanEnv({ LOOPX_AGENT: 'codex', LOOPX_TIMING: '1' }),
    encoding: 'utf8',
  });
  const marks = JSON.parse(timed.stderr) as Record<string, number>;
  expect(Object.keys(marks)).toEqual(['startUpMs', 'loadMs', 'commandMs']);
  expect(Object.values(marks).every((ms) => Number.isFinite(ms) && ms > 0)).toBe(true);
  expect(JSON.parse(timed.stdout).ok).toBe(true);
  expect(run(['todo', 'list', '--json']).stderr).toBe('');
});

import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { REPO, cleanEnv, loopx, startGoal, workspace } from './harness';

/**
 * bin/loopx loads a verb's own bundle (dist/agent/<words>.js) for the verbs of an agent's turn, the bundle of its first
 * word (dist/command/<word>.js) for every other command, and the whole CLI (dist/cli.js) for the rest: help, a word it
 * does not know, mcp, lsp, turn. Proven on a copy of the install: with the whole CLI taken away, an agent's turn and a
 * person's commands still run; help and the rest then fail with the missing file named.
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
  cpSync(join(REPO, 'dist', 'agent'), join(install, 'dist', 'agent'), { recursive: true, filter: (f) => !f.endsWith('.cache') });
  cpSync(join(REPO, 'dist', 'command'), join(install, 'dist', 'command'), { recursive: true });
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

test('an agent’s turn runs on the verbs’ own bundles alone: claim, evidence, ship, status', () => {
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

test('a person’s command runs on its first word’s bundle alone: create a goal, a refused approval, history', () => {
  // LOOPX_TIMING names the bundle each call loaded.
  const person = (args: string[]) => {
    const r = spawnSync(process.execPath, [join(install, 'bin', 'loopx'), ...args], {
      cwd: ws.root,
      env: cleanEnv({ LOOPX_TIMING: '1' }),
      encoding: 'utf8',
    });
    const bundle = (JSON.parse(r.stderr.trim().split('\n').at(-1) ?? '{}') as { bundle?: string }).bundle;
    return { code: r.status, json: JSON.parse(r.stdout) as { ok: boolean; data?: { id?: string }; error?: { code: string } }, bundle };
  };
  const created = person(['goal', 'create', '--title', 'Another', '--json']);
  expect([created.code, created.json.data?.id, created.bundle]).toEqual([0, 'G2', join('command', 'goal.js')]);
  const added = JSON.parse(run(['todo', 'add', '--goal', 'G1', '--title', 'Ask first', '--json']).stdout).data.id as string;
  const asked = run(['gate', 'ask', '--todo', added, '--question', 'May I?', '--json']);
  expect(JSON.parse(asked.stdout), asked.stdout).toMatchObject({ ok: true });
  const gate = JSON.parse(asked.stdout).data.id as string;
  // No terminal here, so a person's approval is refused: by the gate bundle's own rule, as the whole CLI's.
  const approve = person(['gate', 'approve', gate, '--json']);
  expect([approve.code, approve.json.error?.code, approve.bundle]).toEqual([3, 'human_channel_required', join('command', 'gate.js')]);
  const history = person(['history', '--json']);
  expect([history.code, history.json.ok, history.bundle]).toEqual([0, true, join('command', 'history.js')]);
});

test('loopx dashboard, from its word’s bundle in dist/command/, serves the page built beside the CLI (dist/dashboard/)', async () => {
  expect(existsSync(join(REPO, 'dist', 'command', 'dashboard.js')), 'bin/loopx runs the word’s bundle when it is there').toBe(true);
  const home = mkdtempSync(join(tmpdir(), 'loopx-dashboard-home-'));
  const server = spawn(process.execPath, [join(REPO, 'bin', 'loopx'), 'dashboard', '--no-open', '--json'], {
    cwd: ws.root,
    env: cleanEnv({ HOME: home, LOOPX_TIMING: '1' }),
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) resolve((JSON.parse(out.split('\n')[0] as string) as { url: string }).url);
      });
      server.on('exit', (code) => reject(new Error(`loopx dashboard exited with ${code}`)));
    });
    const [page, script] = await Promise.all([fetch(url), fetch(`${url}app.js`)]);
    expect([page.status, await page.text()]).toEqual([200, expect.stringContaining('<title>LoopX dashboard</title>')]);
    expect(script.status).toBe(200);
  } finally {
    server.kill();
    await new Promise((resolve) => server.once('close', resolve));
    rmSync(home, { recursive: true, force: true });
  }
});

test('the whole CLI answers the rest, here missing: help, the version, a word loopx does not know, mcp, turn list', () => {
  for (const args of [['--version'], ['--help'], ['help', 'goal', 'create'], ['todox'], ['mcp'], ['turn', 'list']]) {
    const r = run(args);
    expect([args, r.status, r.stderr]).toEqual([
      args,
      1,
      'loopx: dist/cli.js is missing; run `npm run build` in the loopx checkout first\n',
    ]);
  }
});

test('a word’s bundle answers help, a missing or mistyped second word and a bad flag as the whole CLI does', () => {
  const whole = (args: string[]) =>
    spawnSync(process.execPath, ['-e', `require(${JSON.stringify(join(REPO, 'dist', 'cli.js'))}).main(process.argv.slice(1))`, ...args], {
      cwd: ws.root,
      env: cleanEnv(),
      encoding: 'utf8',
    });
  const viaBin = (args: string[]) =>
    spawnSync(process.execPath, [join(install, 'bin', 'loopx'), ...args], { cwd: ws.root, env: cleanEnv(), encoding: 'utf8' });
  for (const args of [
    ['goal'],
    ['goal', 'craete', '--json'],
    ['goal', 'create', '--help'],
    ['gate', 'approve', '--bogus', '--json'],
    ['team', 'join', '--help'],
    ['prices', '--help'],
    ['init', 'extra'],
  ]) {
    const [a, b] = [whole(args), viaBin(args)];
    expect([args, b.status, b.stdout, b.stderr]).toEqual([args, a.status, a.stdout, a.stderr]);
  }
});

test("bundles load through Node's own compile cache: nothing is written beside them, a rebuilt bundle runs its new code", () => {
  const files = () => readdirSync(join(install, 'dist', 'agent')).sort();
  const before = files();
  const first = run(['todo', 'list', '--json']);
  const second = run(['todo', 'list', '--json']);
  expect([second.status, second.stdout]).toEqual([0, first.stdout]);
  expect(files()).toEqual(before); // a read-only install works the same
  // The same bundle changed on disk to one of the same length (V8's own cache checks only the length): the change runs.
  const bundle = join(install, 'dist', 'agent', 'todo-list.js');
  const source = readFileSync(bundle, 'utf8');
  const end = source.indexOf(';') + 1; // the first statement, e.g. `var Je=Object.defineProperty;`
  expect(end).toBeGreaterThan('throw 7;'.length);
  writeFileSync(bundle, 'throw 7;'.padEnd(end, ' ') + source.slice(end));
  try {
    const changed = run(['todo', 'list', '--json']);
    expect([changed.status, changed.stderr]).toEqual([1, expect.stringContaining('throw 7;')]);
  } finally {
    writeFileSync(bundle, source);
  }
  expect(run(['todo', 'list', '--json']).stdout).toBe(first.stdout);
});

test('LOOPX_TIMING=1 adds one line of timings on stderr (what npm run bench reads); without it stderr stays empty', () => {
  const timed = spawnSync(process.execPath, [join(install, 'bin', 'loopx'), 'todo', 'list', '--json'], {
    cwd: ws.root,
    env: cleanEnv({ LOOPX_AGENT: 'codex', LOOPX_TIMING: '1' }),
    encoding: 'utf8',
  });
  const marks = JSON.parse(timed.stderr) as Record<string, number | string>;
  expect(Object.keys(marks)).toEqual(['startUpMs', 'loadMs', 'commandMs', 'bundle']);
  const { bundle, ...times } = marks;
  expect(bundle).toBe(join('agent', 'todo-list.js')); // the verb's own bundle, not the whole CLI
  expect(Object.values(times).every((ms) => typeof ms === 'number' && Number.isFinite(ms) && ms > 0)).toBe(true);
  expect(JSON.parse(timed.stdout).ok).toBe(true);
  expect(run(['todo', 'list', '--json']).stderr).toBe('');
});

test('global options before the words still pick the verb’s own bundle (dist/cli.js is missing here)', () => {
  const answers = [
    run(['--json', 'status']),
    run(['--root', ws.root, '--json', 'todo', 'list']),
    run([`--agent=codex`, '--json', 'todo', 'next']),
  ];
  expect(answers.map((a) => [a.status, a.stderr, JSON.parse(a.stdout).ok])).toEqual([
    [0, '', true],
    [0, '', true],
    [0, '', true],
  ]);
});

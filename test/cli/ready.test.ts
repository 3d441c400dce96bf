import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { LOOPX, REPO, cleanEnv, loopx } from './harness';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty } from './pty';

/**
 * `loopx ready` through the real CLI: each reason made to fail (or warn) and then to pass, in one workspace, by what a
 * person and an agent really do (a paused goal resumed at a terminal, a gate asked and answered, a check allowed, a
 * lapsed claim, a failed turn, a moved branch, a runner started and stopped).
 */
type Reason = { key: string; level: 'ok' | 'warn' | 'fail'; sentence: string; fix?: string };
type Readiness = { ready: boolean; score: number; host: string | null; reasons: Reason[] };

const NO_HOSTS = { PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter) };

function repo(): string {
  const root = mkdtempSync(join(tmpdir(), 'loopx-ready-'));
  const git = (...args: string[]) => execFileSync('git', ['-C', root, '-c', 'user.name=ada', '-c', 'user.email=ada@example.com', ...args]);
  git('init', '-q', '-b', 'main');
  git('commit', '-q', '--allow-empty', '-m', 'start');
  expect(loopx(['init'], { cwd: root }).code).toBe(0);
  return root;
}

function ready(root: string, goal: string, args: string[] = [], env: Record<string, string> = NO_HOSTS): Readiness {
  const r = loopx(['ready', goal, ...args, '--json'], { cwd: root, env });
  expect(r.code, r.stderr).toBe(0);
  return r.json.data as Readiness;
}
const reason = (r: Readiness, key: string) => r.reasons.find((x) => x.key === key) as Reason;
const level = (root: string, goal: string, key: string, args: string[] = [], env?: Record<string, string>) =>
  reason(ready(root, goal, args, env), key).level;
const as = (agent: string) => ({ ...NO_HOSTS, LOOPX_AGENT: agent });

describe.skipIf(!PTY_AVAILABLE)('loopx ready', () => {
  test('a new goal: paused, no host, no cap, nothing to do: not ready, each with its fix; the score counts them', () => {
    const root = repo();
    loopx(['goal', 'create', '--title', 'Nightly docs', '--turns', '1'], { cwd: root });
    const r = ready(root, 'G1');
    expect(r.ready).toBe(false);
    expect(reason(r, 'goal')).toMatchObject({ level: 'fail', fix: 'loopx goal resume G1 in a terminal, or Resume Goal in VS Code' });
    expect(reason(r, 'host')).toMatchObject({
      level: 'warn',
      sentence: 'no host is known for it yet: no turn has run and no runner serves it',
    });
    expect(reason(r, 'caps').level).toBe('warn');
    expect(reason(r, 'work')).toMatchObject({ level: 'warn', fix: 'add todos: loopx todo add --goal G1 --title "…"' });
    expect(reason(r, 'ticker').level).toBe('warn');
    const points = r.reasons.reduce((n, x) => n + (x.level === 'ok' ? 1 : x.level === 'warn' ? 0.5 : 0), 0);
    expect(r.score).toBe(Math.round((100 * points) / r.reasons.length));
    const text = loopx(['ready', 'G1'], { cwd: root, env: NO_HOSTS }).stdout;
    expect(text).toMatch(/^G1 Nightly docs: not ready to leave running \(score \d+\/100\)\n/);
    expect(text).toContain('  ✗ G1 is paused: nothing runs until a person resumes it\n      fix: loopx goal resume G1');
  });

  test('a goal whose agent a person chose is judged on that host, and the fix to start a runner needs no --host', () => {
    const root = repo();
    loopx(['goal', 'create', '--title', 'Nightly docs', '--turns', '1'], { cwd: root });
    expect(loopxTty(['goal', 'set-host', 'G1', 'qwen', '--json'], 'G1', { cwd: root }).code).toBe(0);
    const r = ready(root, 'G1');
    expect(r.host).toBe('qwen');
    expect(reason(r, 'host').sentence).toMatch(/Qwen Code/);
    expect(reason(r, 'ticker').fix).toMatch(/^start one: loopx run --goal G1 \(/);
    // Asked about another host, that one is judged.
    expect(ready(root, 'G1', ['--host', 'codex']).host).toBe('codex');
  });

  test('each reason turns: goal, caps, work, schedule, host, people, checks, claims, turns, worktrees', { timeout: 120_000 }, async () => {
    const root = repo();
    loopx(['goal', 'create', '--title', 'Keep it green', '--turns', '1', '--tokens', '200000', '--dollars', '2', '--worktree', 'main'], {
      cwd: root,
    });
    expect(loopxTty(['goal', 'resume', 'G1'], 'G1', { cwd: root }).code).toBe(0);
    expect(level(root, 'G1', 'goal')).toBe('ok');
    expect(level(root, 'G1', 'caps')).toBe('ok');
    expect(level(root, 'G1', 'worktrees')).toBe('ok');
    // Work, and a schedule its turns cannot cover: two recurring todos on one turn a day.
    loopx(['todo', 'add', '--goal', 'G1', '--title', 'Run the suite', '--every', '1d'], { cwd: root });
    expect(level(root, 'G1', 'work')).toBe('ok');
    expect(level(root, 'G1', 'schedule')).toBe('ok');
    loopx(['todo', 'add', '--goal', 'G1', '--title', 'Check the links', '--every', '1d'], { cwd: root });
    expect(reason(ready(root, 'G1'), 'schedule')).toMatchObject({
      level: 'warn',
      sentence: '2 recurring todos, but only 1 turns per 24 h: some occurrences will wait',
    });
    // The host: not on PATH, then the real Codex CLI from the checkout's dev dependencies.
    expect(reason(ready(root, 'G1', ['--host', 'codex']), 'host')).toMatchObject({ level: 'fail' });
    const withCodex = { PATH: [join(REPO, 'node_modules', '.bin'), NO_HOSTS.PATH].join(delimiter) };
    expect(reason(ready(root, 'G1', ['--host', 'codex'], withCodex), 'host').level).toBe('ok');
    // A person's answer: a gate an agent asked fails it until a person answers.
    loopx(['gate', 'ask', '--goal', 'G1', '--question', 'Merge the fix?'], { cwd: root, env: as('codex') });
    expect(reason(ready(root, 'G1'), 'people')).toMatchObject({ level: 'fail', sentence: 'waits on a person: Q1 "Merge the fix?"' });
    expect(loopxTty(['gate', 'approve', 'Q1'], 'Q1', { cwd: root }).code).toBe(0);
    expect(level(root, 'G1', 'people')).toBe('ok');
    // A check an agent set waits for a person to allow it.
    loopx(['todo', 'claim', 'T1'], { cwd: root, env: as('codex') });
    const monitor = loopx(['monitor', 'add', '--todo', 'T1', '--check', 'gh pr checks 12', '--json'], { cwd: root, env: as('codex') });
    expect(monitor.code, monitor.stderr).toBe(0);
    expect(reason(ready(root, 'G1'), 'checks')).toMatchObject({ level: 'fail', fix: expect.stringMatching(/^loopx monitor approve M1/) });
    expect(loopxTty(['monitor', 'approve', 'M1'], 'M1', { cwd: root }).code).toBe(0);
    expect(level(root, 'G1', 'checks')).toBe('ok');
    // A claim that outlives its lease.
    expect(level(root, 'G1', 'claims')).toBe('ok');
    // The shortest lease there is (10 s), let lapse.
    expect(loopx(['todo', 'claim', 'T2', '--lease', '10s'], { cwd: root, env: as('claude') }).code).toBe(0);
    await sleep(10_500);
    expect(reason(ready(root, 'G1'), 'claims')).toMatchObject({ level: 'warn', fix: 'release one as its holder: loopx todo release T2' });
    // A turn that made no progress; the host it ran on is the one judged from then on.
    expect(level(root, 'G1', 'turns')).toBe('ok');
    const turn = loopx(['turn', 'start', '--goal', 'G1', '--host', 'codex', '--json'], { cwd: root, env: as('codex-runner') });
    expect(turn.code, turn.stderr).toBe(0);
    const turnId = (turn.json.data as { id: string }).id;
    loopx(['turn', 'finish', turnId, '--exit-code', '1'], { cwd: root, env: as('codex-runner') });
    const afterTurn = ready(root, 'G1');
    expect(reason(afterTurn, 'turns')).toMatchObject({ level: 'warn', sentence: '0 of its last 1 turns made progress' });
    expect(afterTurn.host).toBe('codex');
    // The worktree base goes away.
    execFileSync('git', ['-C', root, 'branch', '-m', 'main', 'trunk']);
    expect(level(root, 'G1', 'worktrees')).toBe('fail');
  });

  test("budget and now: a ready goal would start a turn now; once its window's turns are spent it waits, saying when the next is free", () => {
    const root = repo();
    loopx(['goal', 'create', '--title', 'One a day', '--turns', '1', '--tokens', '100000', '--dollars', '1'], { cwd: root });
    expect(loopxTty(['goal', 'resume', 'G1'], 'G1', { cwd: root }).code).toBe(0);
    loopx(['todo', 'add', '--goal', 'G1', '--title', 'First'], { cwd: root });
    loopx(['todo', 'add', '--goal', 'G1', '--title', 'Second'], { cwd: root });
    const before = ready(root, 'G1');
    expect(reason(before, 'now')).toMatchObject({ level: 'ok', sentence: 'a turn would start now' });
    expect(reason(before, 'budget')).toMatchObject({ level: 'ok', sentence: '1 of 1 turns left in this 24 h window' });
    const agent = join(__dirname, '..', 'extension', 'fixtures', 'scriptedAgent.mjs');
    const run = loopx(['run', '--goal', 'G1', '--host', 'custom', '--command', `node ${agent} {prompt} ship`, '--once'], { cwd: root });
    expect(run.stdout).toMatch(/R1 ended: shipped its todo/);
    const after = ready(root, 'G1');
    expect(reason(after, 'budget')).toMatchObject({
      level: 'warn',
      sentence: expect.stringMatching(/^this 24 h window's 1 turns are spent; the next is free at 20\d\d-/),
    });
    expect(reason(after, 'now')).toMatchObject({ level: 'warn', sentence: expect.stringMatching(/^a turn would wait now: /) });
    expect(after.host).toBe('custom');
  });

  test('a loopx run serving the goal is seen while it lives, and its host is the one judged', async () => {
    const root = repo();
    loopx(['goal', 'create', '--title', 'Served', '--turns', '2'], { cwd: root });
    expect(level(root, 'G1', 'ticker')).toBe('warn');
    // The goal is paused, so the runner waits without running a turn.
    const runner = spawn(
      process.execPath,
      [LOOPX, 'run', '--goal', 'G1', '--host', 'custom', '--command', 'true', '--agent', 'night-runner'],
      {
        cwd: root,
        env: cleanEnv(NO_HOSTS),
        stdio: 'ignore',
      },
    );
    try {
      let seen: Readiness | undefined;
      for (let i = 0; i < 100 && reason((seen = ready(root, 'G1')), 'ticker').level !== 'ok'; i++) await sleep(100);
      expect(reason(seen as Readiness, 'ticker').sentence).toBe(`loopx run serves it (night-runner, pid ${runner.pid}, host custom)`);
      expect(seen?.host).toBe('custom');
    } finally {
      runner.kill('SIGKILL');
    }
    for (let i = 0; i < 50 && level(root, 'G1', 'ticker') !== 'warn'; i++) await sleep(100);
    expect(reason(ready(root, 'G1'), 'ticker')).toMatchObject({
      level: 'warn',
      fix: 'start one: loopx run --goal G1 --host custom (docs/runner.md keeps it running as a service)',
    });
  });

  test('an unknown goal is exit 4 and a bad --host exit 2; nothing is written', () => {
    const root = repo();
    expect(loopx(['ready', 'G9', '--json'], { cwd: root }).code).toBe(4);
    loopx(['goal', 'create', '--title', 'x'], { cwd: root });
    expect(loopx(['ready', 'G1', '--host', 'x; rm -rf /', '--json'], { cwd: root }).code).toBe(2);
  });

  test("a hosts.json loopx cannot take is a warning on a host of one's own, and changes nothing for a built-in host", () => {
    const root = repo();
    loopx(['goal', 'create', '--title', 'Nightly docs', '--turns', '1'], { cwd: root });
    // The person's config folder of this test file (test/humanKeySetup.ts), where loopx reads hosts.json.
    const hostsFile = join(process.env.LOOPX_CONFIG_DIR as string, 'hosts.json');
    writeFileSync(hostsFile, '{ "hosts": { "aider": ');
    try {
      expect(reason(ready(root, 'G1', ['--host', 'aider']), 'host')).toMatchObject({
        level: 'warn',
        sentence: expect.stringMatching(/^aider cannot be judged: .*hosts\.json is not JSON/),
        fix: expect.stringContaining('write it as'),
      });
      expect(reason(ready(root, 'G1', ['--host', 'codex']), 'host').sentence).not.toMatch(/hosts\.json/);
    } finally {
      rmSync(hostsFile, { force: true });
    }
  });
});

if (!PTY_AVAILABLE) console.warn(`SKIPPED (loopx ready, which needs a person at a terminal to resume goals): ${PTY_SKIP_REASON}`);

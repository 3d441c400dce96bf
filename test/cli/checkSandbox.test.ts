import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LOOPX, approveWaitingChecks, cleanEnv, inVsCode, loopx, startGoal, workspace } from './harness';
import { agentCommand } from './runner';
import { addMonitor } from '../../src/kernel/monitors/monitors';
import { createGoal } from '../../src/kernel/goals/goals';
import { planCheckSandbox } from '../../src/kernel/run/checkSandbox';

/** Where checks run is said: in `monitor list` (text and JSON), `doctor`, and the evidence of an acceptance check. */
const ws = workspace();
const root = ws.root;
// A PATH without bwrap: loopx itself is started by its full path, the checks here use shell built-ins only, and git
// (doctor asks it about worktrees) is there by a link of its own.
const noBwrap = mkdtempSync(join(tmpdir(), 'loopx-nobwrap-'));
symlinkSync(execFileSync('/bin/sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(noBwrap, 'git'));
const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: root, env });
type Checks = { checks: { name: string; level: string; detail: string }[] };
const here = planCheckSandbox({ purpose: 'monitor', env: cleanEnv(), actorKind: 'human', writable: [root] }).sandbox;
// Where bwrap cannot run, the with-bwrap half is skipped with the reason in its name; in CI its absence fails.
const skip = here.kind !== 'bubblewrap' && process.env.CI !== 'true';
const withBwrap = skip ? test.skip : test;
const skipped = skip ? ` (SKIPPED: ${here.reason})` : '';

beforeAll(() => {
  cli(['init']);
  inVsCode(root, (kernel) => createGoal(kernel, { title: 'Release', check: 'echo checked' }));
  startGoal(root);
  cli(['todo', 'add', '--goal', 'G1', '--title', 'Wait for CI']); // T1
  cli(['todo', 'add', '--goal', 'G1', '--title', 'Timer']); // T2
  inVsCode(root, (kernel) => {
    addMonitor(kernel, { todoId: 'T1', check: 'echo waiting', everySeconds: 60 });
    addMonitor(kernel, { todoId: 'T2', afterSeconds: 3600 });
  });
});
afterAll(() => {
  ws.dispose();
  rmSync(noBwrap, { recursive: true, force: true });
});

describe('without bwrap on PATH, every place that tells where checks run says they have no sandbox', () => {
  test('monitor list: a sandbox field on each check (null on a timer) and a line saying why', () => {
    const listed = cli(['monitor', 'list', '--json'], { PATH: noBwrap });
    expect(listed.json).toMatchObject({
      ok: true,
      data: [
        { id: 'M1', kind: 'check', sandbox: { kind: 'none', network: true, reason: 'bwrap (bubblewrap) was not found on PATH' } },
        { id: 'M2', kind: 'timer', sandbox: null },
      ],
    });
    expect(cli(['monitor', 'list'], { PATH: noBwrap }).stdout).toContain(
      'Checks run without a sandbox here, with your full access: bwrap (bubblewrap) was not found on PATH.',
    );
  });

  test('doctor warns (and still exits 0: the store is fine)', () => {
    const run = cli(['doctor', '--json'], { PATH: noBwrap });
    expect(run.code).toBe(0);
    expect((run.json.data as Checks).checks).toContainEqual({
      name: 'check sandbox',
      level: 'warn',
      detail: 'checks run without a sandbox: bwrap (bubblewrap) was not found on PATH',
    });
    expect(cli(['doctor'], { PATH: noBwrap }).stdout).toMatch(/warn {2}check sandbox checks run without a sandbox: bwrap/);
  });

  test("an acceptance check's evidence records that it ran without a sandbox", () => {
    const run = cli(['evidence', 'run', '--goal', 'G1', '--check', '--json'], { PATH: noBwrap });
    expect(run.json).toMatchObject({ ok: true, data: { run: { exitCode: 0, sandbox: { kind: 'none', network: true } } } });
  });
});

describe(`with bwrap, the same places say checks run in a sandbox${skipped}`, () => {
  withBwrap('monitor list, doctor and the evidence of an acceptance check', () => {
    expect((cli(['monitor', 'list', '--json']).json.data as unknown[])[0]).toMatchObject({
      sandbox: { kind: 'bubblewrap', network: true },
    });
    expect(cli(['monitor', 'list']).stdout).toContain('Checks run in a bubblewrap sandbox here');
    expect((cli(['doctor', '--json']).json.data as Checks).checks).toContainEqual(
      expect.objectContaining({ name: 'check sandbox', level: 'ok' }),
    );
    const run = cli(['evidence', 'run', '--goal', 'G1', '--check', '--json']);
    expect(run.json).toMatchObject({ ok: true, data: { run: { exitCode: 0, sandbox: { kind: 'bubblewrap', network: false } } } });
  });
});

describe("the opt-out is a person's", () => {
  test("loopx run ticks monitors as whoever started it: a person's LOOPX_CHECK_SANDBOX=off counts (as with --clean-worktrees, not under --agent)", () => {
    const own = workspace();
    try {
      const run = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: own.root, env });
      run(['init']);
      run(['goal', 'create', '--title', 'Nightly']);
      startGoal(own.root);
      run(['todo', 'add', '--goal', 'G1', '--title', 'Step 1']);
      run(['monitor', 'add', '--todo', 'T1', '--check', 'echo x > .loopx/planted']);
      approveWaitingChecks(own.root);
      const runner = spawnSync(process.execPath, [LOOPX, 'run', '--host', 'custom', '--command', agentCommand('ship'), '--until-idle'], {
        cwd: own.root,
        env: cleanEnv({ LOOPX_CHECK_SANDBOX: 'off' }),
        encoding: 'utf8',
        timeout: 50_000,
      });
      expect(runner.status, runner.stderr).toBe(0);
      // Without the sandbox the check could write the store's folder, and the log says it ran without one.
      expect(existsSync(join(own.root, '.loopx', 'planted'))).toBe(true);
      const checked = (run(['history', '--json']).json.data as { kind: string; data: { sandbox?: { reason: string } } }[]).find(
        (e) => e.kind === 'monitor.checked',
      );
      expect(checked?.data.sandbox?.reason).toContain('a person turned the sandbox off');
      expect(run(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
    } finally {
      own.dispose();
    }
  });
});

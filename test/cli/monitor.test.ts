import { spawn } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dumpStore, inVsCode, loopx, startGoal, workspace } from './harness';
import { allowChecks } from '../../src/kernel/monitors/monitors';

const ws = workspace();
const root = ws.root;
const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: root, env });
const codex = (args: string[]) => cli(args, { LOOPX_AGENT: 'codex' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Tick = {
  runs: { monitorId: string; outcome: string; exitCode: number | null }[];
  fired: string[];
  expired: string[];
  nextCheckAt: string | null;
};

beforeAll(() => {
  cli(['init']);
  cli(['goal', 'create', '--title', 'Release 2.0']);
  startGoal(ws.root); // a goal made outside VS Code and a terminal starts paused
  // The person lets agents watch CI results without asking each time (anything else an agent sets waits for them).
  inVsCode(root, (kernel) => allowChecks(kernel, 'G1', ['cat ci-result.txt']));
  cli(['todo', 'add', '--goal', 'G1', '--title', 'Merge once CI is green']); // T1
  cli(['todo', 'add', '--goal', 'G1', '--title', 'Already done']); // T2
  codex(['todo', 'claim', 'T2']);
  codex(['todo', 'ship', 'T2', '--evidence', 'done']);
  // A stand-in for a CI job: it runs until the test lets it finish (after the monitor's first check saw it running,
  // however slow the machine), then writes its verdict.
  writeFileSync(
    join(root, 'ci-job.mjs'),
    `import { existsSync, writeFileSync } from 'node:fs';\n` +
      `const t = setInterval(() => { if (existsSync('finish-job')) { writeFileSync('ci-result.txt', 'build 77: passed\\n'); clearInterval(t); } }, 50);\n`,
  );
});
afterAll(() => ws.dispose());

describe('a scripted CI job with a monitor on it', () => {
  test('the todo waits, no turn can claim it, the monitor fires when the job is done, the todo is ready with the result', async () => {
    expect(codex(['todo', 'claim', 'T1', '--json']).code).toBe(0);
    // The agent starts the job and, instead of polling, hands the waiting to loopx and exits its turn.
    const job = spawn(process.execPath, ['ci-job.mjs'], { cwd: root, stdio: 'ignore' });
    const add = codex([
      'monitor',
      'add',
      '--todo',
      'T1',
      '--check',
      'cat ci-result.txt',
      '--until',
      'match:passed',
      '--every',
      '10s',
      '--timeout',
      '10m',
      '--note',
      'CI build 77 started',
      '--json',
    ]);
    expect(add.json).toMatchObject({
      ok: true,
      data: {
        id: 'M1',
        todoId: 'T1',
        kind: 'check',
        check: 'cat ci-result.txt',
        until: 'match:passed',
        everySeconds: 10,
        status: 'waiting',
        addedBy: 'codex',
        approval: 'pattern',
        approvedBy: 'cat ci-result.txt',
      },
    });
    const listed = cli(['todo', 'list', '--json']).json.data as Record<string, unknown>[];
    expect(listed).toMatchObject([
      { id: 'T1', status: 'open', continuation: expect.stringContaining('Waiting on monitor M1') },
      { id: 'T2' },
    ]);
    expect(listed[0]).not.toHaveProperty('owner'); // released: no owner (lean JSON leaves unset fields out)

    // Waiting: nothing is ready, nobody can claim it, no turn starts; should-run wakes at the next check.
    expect(cli(['todo', 'next', '--json']).json).toEqual({ ok: true, data: null });
    const claim = cli(['todo', 'claim', 'T1', '--json'], { LOOPX_AGENT: 'claude' });
    expect(claim.code).toBe(3);
    expect(claim.json.error).toMatchObject({ code: 'not_ready', message: expect.stringContaining('monitor M1') });
    const turn = cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--agent', 'claude', '--json']);
    expect(turn.code).toBe(3);
    expect(turn.json).toMatchObject({
      error: { code: 'should_not_run' },
      data: { reason: 'no_ready_work', route: 'wait', nextWakeAt: expect.any(String) },
    });
    const status = cli(['status', '--json']).json.data as { monitors: { id: string }[]; goals: { shouldRun: { reason: string } }[] };
    expect(status.monitors).toMatchObject([{ id: 'M1', status: 'waiting' }]);
    expect(cli(['status']).stdout).toMatch(
      /Monitors \(run unattended by loopx monitor tick\)\n\s+M1\s+waiting\s+T1: `cat ci-result.txt` every 10s until match:passed/,
    );

    // A ticker every second, as cron or the extension would run it.
    let fired: Tick | undefined;
    const started = Date.now();
    while (!fired && Date.now() - started < 30_000) {
      const tick = cli(['monitor', 'tick', '--json']);
      expect(tick.code).toBe(0);
      const data = tick.json.data as Tick;
      if (data.fired.includes('M1')) fired = data;
      else {
        // The first check ran while the job was still running; now the job may finish.
        if (data.runs.some((r) => r.monitorId === 'M1')) writeFileSync(join(root, 'finish-job'), '');
        await sleep(1000);
      }
    }
    job.kill();
    expect(fired).toMatchObject({ runs: [{ monitorId: 'M1', outcome: 'fired', exitCode: 0 }], fired: ['M1'], nextCheckAt: null });
    // No wasted wait: it fired at the first check that started after the job wrote its verdict (counted, not timed:
    // a loaded machine delays every check alike).
    const verdictAt = statSync(join(root, 'ci-result.txt')).mtimeMs;

    const todo = (cli(['todo', 'list', '--json']).json.data as { id: string; continuation: string }[])[0];
    expect(todo?.continuation).toContain('Monitor M1 fired');
    expect(todo?.continuation).toContain('build 77: passed');
    expect(todo?.continuation).toContain('CI build 77 started');
    expect(cli(['todo', 'next', '--json']).json.data).toMatchObject({ id: 'T1' });
    const show = cli(['monitor', 'show', 'm1', '--json']).json.data as {
      status: string;
      runs: { n: number; at: string; exitCode: number | null; outputSha256: string }[];
    };
    expect(show.status).toBe('fired');
    expect(show.runs[0]).toMatchObject({ exitCode: 0, outputSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(show.runs.length).toBeGreaterThanOrEqual(2);
    expect(show.runs.filter((r) => Date.parse(r.at) > verdictAt).length).toBeLessThanOrEqual(1);
    expect(cli(['history', '--todo', 'T1', '--json']).json.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'monitor.fired', actor: 'kernel' })]),
    );
    expect(cli(['log', 'verify', '--json']).code).toBe(0);
    expect(cli(['doctor', '--json']).code).toBe(0);
  }, 60_000);
});

describe('bad input gets a clear error, the right exit code, and changes nothing', () => {
  beforeAll(() => {
    cli(['todo', 'add', '--goal', 'G1', '--title', 'Deploy']); // T3
    codex(['todo', 'claim', 'T3']);
    cli(['todo', 'add', '--goal', 'G1', '--title', 'Waits']); // T4
    cli(['monitor', 'add', '--todo', 'T4', '--after', '2h']); // M2, a human's timer
  });
  const cases: [string, string[], number, string, Record<string, string>?][] = [
    ['unknown todo', ['monitor', 'add', '--todo', 'T99', '--check', 'true', '--json'], 4, 'not_found'],
    ['malformed todo id', ['monitor', 'add', '--todo', 'T3;ls', '--check', 'true', '--json'], 2, 'invalid_input'],
    ['bad duration', ['monitor', 'add', '--todo', 'T3', '--check', 'true', '--every', '5 minutes', '--json'], 2, 'invalid_input'],
    ['interval too short', ['monitor', 'add', '--todo', 'T3', '--check', 'true', '--every', '1s', '--json'], 2, 'invalid_input'],
    ['empty command', ['monitor', 'add', '--todo', 'T3', '--check', '', '--json'], 2, 'invalid_input'],
    ['blank command', ['monitor', 'add', '--todo', 'T3', '--check', '   ', '--json'], 2, 'invalid_input'],
    ['neither check nor timer', ['monitor', 'add', '--todo', 'T3', '--json'], 2, 'invalid_input'],
    ['both check and timer', ['monitor', 'add', '--todo', 'T3', '--check', 'true', '--after', '1h', '--json'], 2, 'invalid_input'],
    ['a timer with an interval', ['monitor', 'add', '--todo', 'T3', '--after', '1h', '--every', '5m', '--json'], 2, 'invalid_input'],
    ['a timer with a condition', ['monitor', 'add', '--todo', 'T3', '--after', '1h', '--until', 'change', '--json'], 2, 'invalid_input'],
    ['unknown condition', ['monitor', 'add', '--todo', 'T3', '--check', 'true', '--until', 'green', '--json'], 2, 'invalid_input'],
    ['bad regular expression', ['monitor', 'add', '--todo', 'T3', '--check', 'true', '--until', 'match:([', '--json'], 2, 'invalid_input'],
    ['a monitor on a shipped todo', ['monitor', 'add', '--todo', 'T2', '--check', 'true', '--json'], 3, 'illegal_transition'],
    ['a second monitor on a waiting todo', ['monitor', 'add', '--todo', 'T4', '--check', 'true', '--json'], 3, 'illegal_transition'],
    [
      'a todo another agent holds',
      ['monitor', 'add', '--todo', 'T3', '--check', 'true', '--json'],
      3,
      'lease_lost',
      { LOOPX_AGENT: 'claude' },
    ],
    ['cancel an unknown monitor', ['monitor', 'cancel', 'M9', '--json'], 4, 'not_found'],
    ['cancel a malformed id', ['monitor', 'cancel', 'X1', '--json'], 2, 'invalid_input'],
    ['cancel what a human added, as an agent', ['monitor', 'cancel', 'M2', '--json'], 3, 'not_allowed', { LOOPX_AGENT: 'codex' }],
    ['cancel a monitor that fired', ['monitor', 'cancel', 'M1', '--json'], 3, 'illegal_transition'],
    ['list with a bad status', ['monitor', 'list', '--status', 'sleeping', '--json'], 2, 'invalid_input'],
    ['tick with a bad concurrency', ['monitor', 'tick', '--concurrency', '0', '--json'], 2, 'invalid_input'],
  ];
  test.each(cases)('%s', (_label, args, code, errorCode, env) => {
    const before = dumpStore(root);
    const run = cli(args, env);
    expect(run.code).toBe(code);
    expect(run.json).toMatchObject({ ok: false, error: { code: errorCode, message: expect.any(String) } });
    expect(dumpStore(root)).toBe(before);
  });

  test('a tick with nothing due changes nothing, not even STATUS.md', () => {
    const statusMd = join(root, '.loopx', 'STATUS.md');
    const before = dumpStore(root);
    const mtime = statSync(statusMd).mtimeMs;
    expect(cli(['monitor', 'tick', '--json']).json).toMatchObject({
      ok: true,
      data: { runs: [], fired: [], expired: [], nextCheckAt: expect.any(String) },
    });
    expect(dumpStore(root)).toBe(before);
    expect(statSync(statusMd).mtimeMs).toBe(mtime);
    expect(existsSync(statusMd)).toBe(true);
  });

  test('list filters and human output; cancel by a human frees the todo', () => {
    expect(cli(['monitor', 'list', '--status', 'waiting', '--json']).json.data).toMatchObject([{ id: 'M2', kind: 'timer', todoId: 'T4' }]);
    expect(cli(['monitor', 'list', '--todo', 'T1', '--json']).json.data).toMatchObject([{ id: 'M1', status: 'fired' }]);
    expect(cli(['monitor', 'list']).stdout).toMatch(/M2\s+waiting\s+T4: timer/);
    expect(cli(['monitor', 'cancel', 'M2', '--reason', 'not needed', '--json']).json).toMatchObject({
      ok: true,
      data: { status: 'cancelled', result: expect.stringContaining('not needed') },
    });
    expect(cli(['todo', 'list', '--ready', '--json']).json.data).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'T4' })]));
  });
});

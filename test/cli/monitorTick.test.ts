import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { approveWaitingChecks, loopx, loopxAsync, startGoal, workspace } from './harness';

/** `monitor tick` as separate processes: time limits, timeouts, and tickers racing each other. */
const ws = workspace();
const root = ws.root;
const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: root, env });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Tick = {
  runs: { monitorId: string; outcome: string; exitCode: number | null; timedOut: boolean; error: string | null; durationMs: number }[];
  fired: string[];
  expired: string[];
};
const tick = () => cli(['monitor', 'tick', '--json']).json.data as Tick;
const todo = (title: string) => (cli(['todo', 'add', '--goal', 'G1', '--title', title, '--json']).json.data as { id: string }).id;

beforeAll(() => {
  cli(['init']);
  cli(['goal', 'create', '--title', 'Nightly']);
  startGoal(ws.root); // a goal made outside VS Code and a terminal starts paused
});
afterAll(() => ws.dispose());

describe('monitor tick', () => {
  test('a check that hangs is killed at its run limit, and the run says so', () => {
    const t = todo('hangs');
    cli(['monitor', 'add', '--todo', t, '--check', 'echo waiting for the lock; sleep 120', '--run-limit', '2s', '--json']);
    approveWaitingChecks(root);
    const started = Date.now();
    const result = tick();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.runs).toMatchObject([
      { outcome: 'waiting', exitCode: null, timedOut: true, error: expect.stringContaining('time limit of 2 s') },
    ]);
    expect(result.runs[0]?.durationMs).toBeGreaterThanOrEqual(1900);
    const show = cli(['monitor', 'show', 'M1', '--json']).json.data as { runs: { outputTail: string }[] };
    expect(show.runs[0]?.outputTail).toContain('waiting for the lock');
    // A check that cannot run is for a person: it shows in the attention part of status and STATUS.md.
    expect(cli(['status']).stdout).toMatch(/Needs a human\n[\s\S]*M1\s+waiting[\s\S]*its check cannot run/);
    expect(readFileSync(join(root, '.loopx', 'STATUS.md'), 'utf8')).toContain('Monitor M1 on T1 cannot run its check');
    cli(['todo', 'kill', t, '--reason', 'the lock never frees']); // its monitor is cancelled with it
  }, 30_000);

  test('past its timeout a monitor expires, saying so, and its todo is ready again', async () => {
    const t = todo('never passes');
    cli(['monitor', 'add', '--todo', t, '--check', 'echo not yet; exit 1', '--every', '10s', '--timeout', '10s', '--json']);
    approveWaitingChecks(root);
    expect(tick().runs).toMatchObject([{ monitorId: 'M2', outcome: 'waiting', exitCode: 1 }]);
    expect(cli(['todo', 'next', '--json']).json.data).toBeNull();
    await sleep(10_500);
    const result = tick();
    expect(result).toMatchObject({ runs: [], expired: ['M2'] });
    expect(cli(['monitor', 'show', 'M2', '--json']).json.data).toMatchObject({
      status: 'expired',
      result: expect.stringContaining('without exit0 holding'),
    });
    const next = cli(['todo', 'next', '--json']).json.data as { id: string; continuation: string };
    expect(next.id).toBe(t);
    expect(next.continuation).toContain('Monitor M2');
    expect(next.continuation).toContain('not yet');
  }, 30_000);

  test('two tickers in two processes at once run each due check exactly once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const t = todo(`job ${i}`);
      const add = cli(['monitor', 'add', '--todo', t, '--check', 'echo "$LOOPX_MONITOR" >> runs.log; sleep 0.5; exit 1', '--json']);
      ids.push((add.json.data as { id: string }).id);
    }
    approveWaitingChecks(root);
    const [a, b] = await Promise.all([
      loopxAsync(['monitor', 'tick', '--concurrency', '2', '--json'], { cwd: root }),
      loopxAsync(['monitor', 'tick', '--concurrency', '2', '--json'], { cwd: root }),
    ]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const runs = [...(a.json.data as Tick).runs, ...(b.json.data as Tick).runs].map((r) => r.monitorId);
    expect(runs.sort()).toEqual([...ids].sort());
    expect(readFileSync(join(root, 'runs.log'), 'utf8').trim().split('\n').sort()).toEqual([...ids].sort());
    // Both did work: the race was real.
    expect((a.json.data as Tick).runs.length).toBeGreaterThan(0);
    expect((b.json.data as Tick).runs.length).toBeGreaterThan(0);
  }, 30_000);
});

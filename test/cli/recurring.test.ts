import { afterAll, beforeAll, expect, test } from 'vitest';
import { dumpStore, loopx, startGoal, workspace } from './harness';

const ws = workspace();
const root = ws.root;
const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: root, env });
const bot = (args: string[]) => cli(args, { LOOPX_AGENT: 'bot' });

beforeAll(() => {
  cli(['init']);
  cli(['goal', 'create', '--title', 'Chores']);
  startGoal(ws.root); // a goal made outside VS Code and a terminal starts paused
});
afterAll(() => ws.dispose());

test('a recurring todo: the next occurrence follows a ship and waits until its time', () => {
  const add = cli(['todo', 'add', '--goal', 'G1', '--title', 'Triage', '--every', '1h', '--json']);
  expect(add.json).toMatchObject({ ok: true, data: { id: 'T1', recurrence: { every: 3600, text: 'every 1h' }, readyAt: null } });
  bot(['todo', 'claim', 'T1']);
  bot(['todo', 'ship', 'T1', '--evidence', 'triaged 4 issues']);
  const todos = cli(['todo', 'list', '--json']).json.data as {
    id: string;
    status: string;
    readyAt: string | null;
    previousId: string | null;
  }[];
  expect(todos).toMatchObject([
    { id: 'T1', status: 'shipped' },
    { id: 'T2', status: 'open', previousId: 'T1', readyAt: expect.any(String) },
  ]);
  expect(Date.parse(todos[1]?.readyAt ?? '') - Date.now()).toBeGreaterThan(50 * 60_000);
  expect(cli(['todo', 'next', '--json']).json.data).toBeNull();
  expect(bot(['todo', 'claim', 'T2', '--json']).json.error).toMatchObject({
    code: 'not_ready',
    message: expect.stringContaining('scheduled for'),
  });
  expect(cli(['quota', 'should-run', '--goal', 'G1', '--json']).json.data).toMatchObject({
    run: false,
    reason: 'no_ready_work',
    nextWakeAt: todos[1]?.readyAt,
  });
  expect(cli(['todo', 'list']).stdout).toMatch(/T2\s+open\s+P2\s+Triage\s+\(recurs every 1h; due in (59|60)m; follows T1\)/);
  expect(cli(['history', '--todo', 'T2', '--json']).json.data).toMatchObject([
    { kind: 'todo.added', actor: 'kernel', data: { previous: 'T1' } },
  ]);
  // Killing an occurrence schedules the next, unless the series is ended.
  cli(['todo', 'kill', 'T2', '--reason', 'skip this one']);
  cli(['todo', 'kill', 'T3', '--reason', 'stop triage', '--end-series']);
  expect((cli(['todo', 'list', '--json']).json.data as unknown[]).length).toBe(3);
});

test('cron and --at schedules record their time zone', () => {
  expect(
    cli(['todo', 'add', '--goal', 'G1', '--title', 'Report', '--every', '1d', '--at', '09:00', '--tz', 'Asia/Tokyo', '--json']).json,
  ).toMatchObject({
    ok: true,
    data: {
      recurrence: { every: 86400, at: '09:00', tz: 'Asia/Tokyo', text: 'daily at 09:00 (Asia/Tokyo)' },
      readyAt: expect.stringMatching(/T00:00:00\.000Z$/),
    },
  });
  expect(cli(['todo', 'add', '--goal', 'G1', '--title', 'Deps', '--cron', '0 9 * * 1-5', '--tz', 'UTC', '--json']).json).toMatchObject({
    ok: true,
    data: { recurrence: { cron: '0 9 * * 1-5', tz: 'UTC' }, readyAt: expect.stringMatching(/T09:00:00\.000Z$/) },
  });
});

test.each([
  ['bad cron', ['--cron', '0 25 * * *']],
  ['cron with six fields', ['--cron', '0 0 9 * * 1-5']],
  ['words for cron', ['--cron', 'every morning']],
  ['--at without --every', ['--at', '09:00']],
  ['--at with hours', ['--every', '6h', '--at', '09:00']],
  ['bad time of day', ['--every', '1d', '--at', '9:00pm']],
  ['bad interval', ['--every', 'daily']],
  ['both kinds', ['--every', '1d', '--cron', '@daily']],
  ['unknown time zone', ['--every', '1d', '--at', '09:00', '--tz', 'Moon/Tranquility']],
])('%s: exit 2, nothing changes', (_label, extra) => {
  const before = dumpStore(root);
  const run = cli(['todo', 'add', '--goal', 'G1', '--title', 'x', ...extra, '--json']);
  expect(run.code).toBe(2);
  expect(run.json).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.any(String) } });
  expect(dumpStore(root)).toBe(before);
});

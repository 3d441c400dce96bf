import { afterEach, beforeEach, expect, test } from 'vitest';
import { openDb } from '../../src/kernel/db/openDb';
import { Kernel } from '../../src/kernel/kernel';
import { loopx, seededWorkspace, startGoal } from './harness';

let ws: ReturnType<typeof seededWorkspace>;
const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: ws.root, env });

beforeEach(() => {
  ws = seededWorkspace('three todos, one shipped', (root) => {
    const made = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: root, env });
    made(['init']);
    made(['goal', 'create', '--title', 'g']);
    startGoal(root);
    for (const t of ['a', 'b', 'c']) made(['todo', 'add', '--goal', 'G1', '--title', t]);
    made(['todo', 'claim', 'T2', '--json'], { LOOPX_AGENT: 'codex' });
    made(['todo', 'ship', 'T2', '--evidence', 'all tests pass', '--json'], { LOOPX_AGENT: 'codex' });
  });
});
afterEach(() => ws.dispose());

function edit(sql: string): void {
  const db = openDb(Kernel.storePath(ws.root));
  db.exec(sql);
  db.close();
}

test('an edited past event is found by log verify (exit 3) at that event, and by doctor', () => {
  expect(cli(['log', 'verify', '--json']).json).toEqual({
    ok: true,
    data: {
      ok: true,
      events: 9,
      firstBadSeq: null,
      head: { seq: 9, hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
      log: 'local',
      decisions: { checked: 1, unproven: [], acceptedThrough: 0, key: 'present' },
      setAside: [],
    },
  });
  edit(`UPDATE events SET data = replace(data, 'all tests pass', 'no tests at all') WHERE kind = 'evidence'`);
  const verify = cli(['log', 'verify', '--json']);
  expect(verify.code).toBe(3);
  expect(verify.json).toMatchObject({
    ok: false,
    error: { code: 'log_broken', message: expect.stringContaining('event 8') },
    data: { ok: false, events: 9, firstBadSeq: 8 },
  });
  const human = cli(['log', 'verify']);
  expect(human.code).toBe(3);
  expect(human.stdout).toContain('BROKEN at event 8');
  const doctor = cli(['doctor', '--json']);
  expect(doctor.code).toBe(3);
  expect(doctor.json).toMatchObject({ ok: false, error: { code: 'doctor_failed' }, data: { ok: false } });
});

test('a state row changed behind the log is caught by doctor replay', () => {
  edit(`UPDATE todos SET status = 'shipped' WHERE id = 'T1'`);
  expect(cli(['log', 'verify', '--json']).code).toBe(0);
  const doctor = cli(['doctor', '--json']);
  expect(doctor.code).toBe(3);
  const checks = (doctor.json.data as { checks: { name: string; level: string; detail: string }[] }).checks;
  expect(checks.find((c) => c.name === 'replay')).toMatchObject({ level: 'fail', detail: expect.stringContaining('todos') });
});

test('a count the store keeps, changed behind the log, is caught by doctor replay; the ready list would have counted it', () => {
  expect((cli(['todo', 'list', '--ready', '--limit', '1', '--json'], { LOOPX_AGENT: 'codex' }).json as { more?: number }).more).toBe(1);
  edit(`UPDATE open_unheld SET n = n + 5`);
  expect((cli(['todo', 'list', '--ready', '--limit', '1', '--json'], { LOOPX_AGENT: 'codex' }).json as { more?: number }).more).toBe(6);
  expect(cli(['log', 'verify', '--json']).code).toBe(0);
  const doctor = cli(['doctor', '--json']);
  expect(doctor.code).toBe(3);
  const checks = (doctor.json.data as { checks: { name: string; level: string; detail: string }[] }).checks;
  expect(checks.find((c) => c.name === 'replay')).toMatchObject({ level: 'fail', detail: expect.stringContaining('open_unheld') });
});

test('a cut tail verifies as a shorter chain, but not against an anchor kept outside the store', () => {
  const before = cli(['log', 'verify', '--json']).json.data as { head: { seq: number; hash: string } };
  const anchor = `${before.head.seq}:${before.head.hash}`;
  expect(cli(['log', 'verify']).stdout).toContain(`Anchor (keep it outside .loopx/ to check later that nothing was cut): ${anchor}`);
  const same = cli(['log', 'verify', '--anchor', anchor]);
  expect(same.code).toBe(0);
  expect(same.stdout).toContain('event 9 still as anchored');

  edit('DELETE FROM events WHERE seq > 7');
  expect(cli(['log', 'verify', '--json']).code).toBe(0); // the chain alone cannot tell
  const cut = cli(['log', 'verify', '--anchor', anchor, '--json']);
  expect(cut.code).toBe(3);
  expect(cut.json).toMatchObject({
    ok: false,
    error: { code: 'log_truncated', message: expect.stringContaining('event 9 is gone: the log now ends at event 7') },
    data: { ok: false, events: 7, firstBadSeq: 8 },
  });

  // Written again past the cut: the anchored sequence number exists, but it is another event.
  cli(['todo', 'add', '--goal', 'G1', '--title', 'd']);
  cli(['todo', 'add', '--goal', 'G1', '--title', 'e']);
  const rewritten = cli(['log', 'verify', '--anchor', anchor, '--json']);
  expect(rewritten.code).toBe(3);
  expect(rewritten.json).toMatchObject({ ok: false, error: { code: 'log_rewritten' }, data: { ok: false, events: 9, firstBadSeq: 9 } });
  expect(cli(['log', 'verify', '--anchor', anchor]).stdout).toContain('Log CUT: event 9 is not the event that was anchored');
});

test.each([['8'], ['abc'], ['0:' + 'a'.repeat(64)], ['8:' + 'g'.repeat(64)], ['8:' + 'a'.repeat(63)], ['-1:' + 'a'.repeat(64)], ['']])(
  'a malformed --anchor %j is a usage error (exit 2)',
  (anchor) => {
    const r = cli(['log', 'verify', '--anchor', anchor, '--json']);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ ok: false, error: { code: expect.any(String), message: expect.stringContaining('--anchor') } });
  },
);

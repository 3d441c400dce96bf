import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openDb } from '../../src/kernel/db/openDb';
import { Kernel } from '../../src/kernel/kernel';
import { dumpStore, loopx, startGoal, workspace } from './harness';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty } from './pty';

let ws: ReturnType<typeof workspace>;
const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: ws.root, env });
const agent = (args: string[]) => cli(args, { LOOPX_AGENT: 'codex' });
const marker = () => join(ws.root, '.loopx', 'log-broken.json');

beforeEach(() => {
  ws = workspace();
  cli(['init']);
  cli(['goal', 'create', '--title', 'g']);
  startGoal(ws.root);
  for (const t of ['a', 'b']) cli(['todo', 'add', '--goal', 'G1', '--title', t]);
  agent(['todo', 'claim', 'T1']);
  agent(['evidence', 'add', '--todo', 'T1', '--summary', 'all tests pass']);
});
afterEach(() => ws.dispose());

function edit(sql: string): void {
  const db = openDb(Kernel.storePath(ws.root));
  db.exec(sql);
  db.close();
}

test('once log verify has found the chain broken, agents may not write (exit 3 log_broken), nor a "human" without a channel', () => {
  edit(`UPDATE events SET data = replace(data, 'all tests pass', 'no tests at all') WHERE kind = 'evidence'`);
  agent(['todo', 'claim', 'T2']); // the tail is still sound: this write goes through, as before
  expect(cli(['log', 'verify']).code).toBe(3);
  expect(existsSync(marker())).toBe(true);
  const before = dumpStore(ws.root);
  const refused = agent(['todo', 'release', 'T2', '--json']);
  expect([refused.code, refused.json.error?.code]).toEqual([3, 'log_broken']);
  expect(refused.json.error?.hint).toMatch(/loopx log accept/);
  expect(cli(['todo', 'add', '--goal', 'G1', '--title', 'c', '--json']).json.error?.code).toBe('log_broken');
  expect(dumpStore(ws.root)).toBe(before);
});

test('doctor marks it too', () => {
  edit(`UPDATE events SET data = replace(data, 'all tests pass', 'no tests at all') WHERE kind = 'evidence'`);
  expect(cli(['doctor']).code).toBe(3);
  expect(agent(['todo', 'claim', 'T2', '--json']).json.error?.code).toBe('log_broken');
});

test('a rewritten tail is noticed by the very next write, before the agent acts on it', () => {
  edit(`UPDATE events SET data = replace(data, 'all tests pass', 'nothing was run') WHERE seq = (SELECT max(seq) FROM events)`);
  const before = dumpStore(ws.root);
  const write = agent(['todo', 'release', 'T1', '--json']);
  expect([write.code, write.json.error?.code]).toEqual([3, 'log_broken']);
  expect(dumpStore(ws.root)).toBe(before);
  expect(existsSync(marker())).toBe(true);
  edit(`UPDATE events SET hash = 'f' || substr(hash, 2) WHERE seq = (SELECT max(seq) FROM events)`);
  expect(cli(['log', 'verify']).code).toBe(3);
});

test('log accept is human-only: refused for an agent and without a terminal', () => {
  edit(`UPDATE events SET data = replace(data, 'all tests pass', 'no tests at all') WHERE kind = 'evidence'`);
  cli(['log', 'verify']);
  expect(agent(['log', 'accept', '--json']).json.error?.code).toBe('not_allowed');
  expect(cli(['log', 'accept', '--json']).json.error?.code).toBe('human_channel_required');
});

describe.skipIf(!PTY_AVAILABLE)(`accepting in a terminal${PTY_AVAILABLE ? '' : ` — SKIPPED: ${PTY_SKIP_REASON}`}`, () => {
  test('a human accepts the log as found: agents write again, verify passes, and a later edit before the acceptance is a break again', () => {
    edit(`UPDATE events SET data = replace(data, 'all tests pass', 'no tests at all') WHERE kind = 'evidence'`);
    expect(cli(['log', 'verify']).code).toBe(3);
    const accept = loopxTty(['log', 'accept', '--json'], 'accept', { cwd: ws.root });
    expect(accept.stderr).toContain('broken at event');
    expect(accept.json).toMatchObject({ ok: true, data: { accepted: true, firstBadSeq: expect.any(Number) } });
    expect(existsSync(marker())).toBe(false);
    expect(agent(['todo', 'claim', 'T2', '--json']).code).toBe(0);
    expect(cli(['log', 'verify', '--json']).json).toMatchObject({ ok: true });
    expect(cli(['doctor']).code).toBe(0);
    const history = cli(['history', '--json']).json.data as { kind: string; data: { channel?: string } }[];
    expect(history.find((e) => e.kind === 'log.accepted')?.data.channel).toBe('tty');

    edit(`UPDATE events SET data = replace(data, '"a"', '"A"') WHERE kind = 'todo.added' AND todo_id = 'T1'`);
    expect(cli(['log', 'verify']).code).toBe(3);
    expect(agent(['todo', 'release', 'T2', '--json']).json.error?.code).toBe('log_broken');
  });
});

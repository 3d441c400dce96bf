import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { openDb } from '../../src/kernel/db/openDb';
import { Kernel } from '../../src/kernel/kernel';
import { forgeEvent } from '../support/forgeKit';
import { LOOPX, cleanEnv, loopx, startGoal, workspace } from './harness';
import { agentCommand } from './runner';
import { loopxTty } from './pty';

/**
 * An agent that can write .loopx/loopx.db (sqlite3 and sha256sum in a workspace-write sandbox) appends a correctly
 * chained `monitor.approved` by "ada via vscode" and mirrors the reducer's update. The chain and replay still pass;
 * the missing proof is what log verify, doctor and the ticker see. The key is this test's LOOPX_CONFIG_DIR
 * (test/humanKeySetup.ts), which every loopx it spawns inherits.
 */
let ws: ReturnType<typeof workspace>;
const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: ws.root, env });
const codex = { LOOPX_AGENT: 'codex' };

beforeEach(() => {
  ws = workspace();
  cli(['init']);
  cli(['goal', 'create', '--title', 'Deploy']);
  startGoal(ws.root);
  cli(['todo', 'add', '--goal', 'G1', '--title', 'watch CI']);
  cli(['todo', 'claim', 'T1'], codex);
  const added = cli(['monitor', 'add', '--todo', 'T1', '--check', 'touch ran', '--every', '10s', '--json'], codex);
  expect(added.json).toMatchObject({ ok: true, data: { id: 'M1', approval: 'pending' } });
});
afterEach(() => ws.dispose());

function forgeApproval(): number {
  const db = openDb(Kernel.storePath(ws.root));
  try {
    return forgeEvent(
      db,
      { kind: 'monitor.approved', goalId: 'G1', todoId: 'T1', data: { id: 'M1', command: 'touch ran', pattern: null } },
      { at: new Date().toISOString() },
    );
  } finally {
    db.close();
  }
}

test('a forged approval: log verify names it (exit 3 unproven_decision), doctor fails its line, monitor tick runs nothing', () => {
  const seq = forgeApproval();
  const verify = cli(['log', 'verify', '--json']);
  expect(verify.code).toBe(3);
  expect(verify.json).toMatchObject({
    ok: false,
    error: { code: 'unproven_decision', message: expect.stringContaining(`event ${seq} (monitor.approved by ada via vscode)`) },
    data: {
      ok: false,
      firstBadSeq: null,
      decisions: {
        unproven: [{ seq, kind: 'monitor.approved', actor: 'ada', channel: 'vscode', why: "carries no proof from this machine's key" }],
        key: 'present',
      },
    },
  });
  expect(cli(['log', 'verify']).stdout).toContain(
    `event ${seq} (monitor.approved by ada via vscode): carries no proof from this machine's key`,
  );
  const doctor = cli(['doctor', '--json']);
  expect(doctor.code).toBe(3);
  const checks = (doctor.json?.data as { checks: { name: string; level: string; detail: string }[] }).checks;
  expect(checks.find((c) => c.name === "people's decisions")).toMatchObject({
    level: 'fail',
    detail: expect.stringContaining(`event ${seq}`),
  });
  expect(checks.find((c) => c.name === 'hash chain')).toMatchObject({ level: 'ok' });
  expect(checks.find((c) => c.name === 'replay')).toMatchObject({ level: 'ok' });
  const tick = cli(['monitor', 'tick', '--json']);
  expect(tick.json).toMatchObject({ ok: true, data: { runs: [], refused: [{ monitorId: 'M1' }] } });
  expect(existsSync(join(ws.root, 'ran'))).toBe(false);
});

test('an agent cannot accept it; a person at a terminal sees it listed, accepts it, and then it stands', () => {
  const seq = forgeApproval();
  expect(cli(['log', 'accept', '--json'], codex).json).toMatchObject({ ok: false, error: { code: 'not_allowed' } });
  const accepted = loopxTty(['log', 'accept', '--json'], 'accept', { cwd: ws.root });
  expect(accepted.stderr).toContain(`event ${seq} (monitor.approved by ada via vscode)`);
  expect(accepted.json).toMatchObject({ ok: true, data: { accepted: true, decisions: [{ seq }] } });
  expect(cli(['log', 'verify', '--json']).json).toMatchObject({ ok: true, data: { decisions: { unproven: [], acceptedThrough: seq } } });
});

test("a person's own approval at a terminal is proven: log verify passes and the check runs", () => {
  const approved = loopxTty(['monitor', 'approve', 'M1', '--json'], 'M1', { cwd: ws.root });
  expect(approved.json).toMatchObject({ ok: true, data: { approval: 'approved', approvalChannel: 'tty' } });
  expect(cli(['log', 'verify', '--json']).json).toMatchObject({ ok: true, data: { ok: true, decisions: { unproven: [] } } });
  const tick = cli(['monitor', 'tick', '--json']);
  expect(tick.json).toMatchObject({ ok: true, data: { runs: [{ monitorId: 'M1' }], refused: [] } });
  expect(existsSync(join(ws.root, 'ran'))).toBe(true);
});

test('loopx run starts no turn while the store holds a forged decision, and says which event and what to do', () => {
  cli(['todo', 'add', '--goal', 'G1', '--title', 'ready work']);
  const seq = forgeApproval();
  const run = spawnSync(
    process.execPath,
    [LOOPX, 'run', '--host', 'custom', '--command', agentCommand('ship'), '--agent', 'bot', '--until-idle'],
    {
      cwd: ws.root,
      env: cleanEnv(),
      encoding: 'utf8',
      timeout: 50_000,
    },
  );
  expect(run.status, run.stderr).toBe(0);
  expect(run.stdout).toContain(
    `G1: not starting turns: no turn starts while a decision in the log stands on nothing: event ${seq} (monitor.approved by ada via vscode)`,
  );
  expect(run.stdout).toContain('loopx log accept');
  expect(run.stdout).toMatch(/monitors: monitor M1's check \(touch ran\)/);
  expect(cli(['turn', 'list', '--json']).json).toMatchObject({ ok: true, data: [] });
  expect(existsSync(join(ws.root, 'ran'))).toBe(false);
});

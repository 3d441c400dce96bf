import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, human, makeStore, type TestStore } from '../../test/support/testKit';
import { createGoal, setGoalStatus } from './goals/goals';
import { addTodo } from './todos/todos';
import { claimTodo } from './todos/claims';
import { addMonitor, approveMonitor } from './monitors/monitors';
import { tickMonitors } from './monitors/tick';
import { askGate } from './gates/gates';
import { listHooks } from './hooks/hooks';
import { dispatchHooks } from './hooks/dispatch';
import { setGoalCheck } from './checks/checks';
import { runEvidence } from './evidence/evidenceRun';
import { acceptBrokenLog } from './logDecisions';
import { auditDecisions } from './decisions';
import { requireTurnMayStart } from './goals/goalStanding';
import { forgeEvent } from '../../test/support/forgeKit';
import { humanKeyDir, humanKeyPath, readHumanKey } from './humanKey';
import { verifyChain } from './events/verify';
import { checkReplay } from './replay';
import { iso } from './time';

let s: TestStore;
let goalId: string;
const codex = agent('codex');
beforeEach(() => {
  s = makeStore();
  goalId = createGoal(s.kernel, { title: 'Deploy', turnsPerWindow: 10 }).id;
});
afterEach(() => s.dispose());

const at = () => iso(s.clock.ms);
const ran = (name: string) => existsSync(join(s.root, name));
const unproven = () => auditDecisions(s.kernel.db).unproven;
/** A todo an agent holds, with a check it set that leaves a file behind if it ever runs; it waits for a person. */
function agentCheck(name: string) {
  const todo = addTodo(s.kernel, { goalId, title: name }).id;
  claimTodo(s.as(codex), todo);
  return addMonitor(s.as(codex), { todoId: todo, check: `touch ${join(s.root, name)}`, everySeconds: 10 });
}

describe("a person's real decision carries a proof that verifies, and loopx acts on it", () => {
  test('the key is made on first need, 0600 in a 0700 folder, outside the workspace; the decision records its id and MAC', async () => {
    const m = agentCheck('approved-ran');
    approveMonitor(s.as(human), m.id);
    const key = readHumanKey();
    expect(key.key).not.toBeNull();
    expect(humanKeyDir()).toBe(process.env.LOOPX_CONFIG_DIR);
    if (process.platform !== 'win32') {
      expect(statSync(humanKeyPath()).mode & 0o777).toBe(0o600);
      expect(statSync(humanKeyDir()).mode & 0o777).toBe(0o700);
    }
    const row = s.kernel.db.prepare(`SELECT data FROM events WHERE kind = 'monitor.approved'`).get();
    const data = JSON.parse(String(row?.data)) as { proof: { key: string; mac: string }; channel: string };
    expect(data).toMatchObject({ channel: 'vscode', proof: { key: key.key ? key.id : '', mac: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    expect(unproven()).toEqual([]);
    expect(verifyChain(s.kernel.db).ok).toBe(true);
    expect(checkReplay(s.kernel.db).ok).toBe(true);
    const tick = await tickMonitors(s.kernel);
    expect(tick.refused).toEqual([]);
    expect(ran('approved-ran')).toBe(true);
    expect(() => s.kernel.read((db) => requireTurnMayStart(db, goalId))).not.toThrow();
  });

  test('an agent, or a person without a channel, records no proof (and none is asked of them)', () => {
    addTodo(s.as(codex), { goalId, title: 'by an agent' });
    const data = s.kernel.db.prepare(`SELECT data FROM events WHERE actor_kind = 'agent'`).all();
    expect(data.map((r) => String(r.data)).some((d) => d.includes('proof'))).toBe(false);
    expect(unproven()).toEqual([]);
  });
});

describe("a well-chained decision in a person's name, written with SQL, is named and never acted on", () => {
  test('monitor.approved "ada via vscode": log verify sees a sound chain, the audit names it, the ticker refuses the check', async () => {
    const m = agentCheck('forged-ran');
    const seq = forgeEvent(
      s.kernel.db,
      { kind: 'monitor.approved', goalId, todoId: m.todoId, data: { id: m.id, command: m.check as string, pattern: null } },
      { at: at() },
    );
    expect(verifyChain(s.kernel.db).ok).toBe(true);
    expect(checkReplay(s.kernel.db)).toMatchObject({ ok: true });
    expect(unproven()).toEqual([
      expect.objectContaining({
        seq,
        kind: 'monitor.approved',
        actor: 'ada',
        channel: 'vscode',
        proof: 'none',
        why: "carries no proof from this machine's key",
      }),
    ]);
    const tick = await tickMonitors(s.kernel);
    expect(tick.runs).toEqual([]);
    expect(tick.refused).toEqual([
      { monitorId: m.id, message: expect.stringContaining(`event ${seq} (monitor.approved by ada via vscode)`) },
    ]);
    expect(ran('forged-ran')).toBe(false);
    // It stays due until a person decides, but a runner sleeping until the next check does not wake for it over and over.
    expect(tick.nextCheckAt === null || tick.nextCheckAt > at()).toBe(true);
  });

  test('a proof in the name of this machine\'s key that does not verify: "its proof does not verify"', async () => {
    const m = agentCheck('bad-mac-ran');
    const key = readHumanKey();
    forgeEvent(
      s.kernel.db,
      { kind: 'monitor.approved', goalId, todoId: m.todoId, data: { id: m.id, command: m.check as string, pattern: null } },
      { at: at(), proof: { key: key.key ? key.id : 'x', mac: '0'.repeat(64) } },
    );
    expect(unproven()).toEqual([expect.objectContaining({ proof: 'bad', why: 'its proof does not verify' })]);
    await tickMonitors(s.kernel);
    expect(ran('bad-mac-ran')).toBe(false);
  });

  test('the monitors table edited to "approved" with no event at all: no decision allows it, nothing runs', async () => {
    const m = agentCheck('table-ran');
    s.kernel.db.prepare(`UPDATE monitors SET approval = 'approved', approved_by = 'ada' WHERE id = ?`).run(m.id);
    const tick = await tickMonitors(s.kernel);
    expect(tick.refused[0]?.message).toMatch(/no person's decision in the log allows it/);
    expect(ran('table-ran')).toBe(false);
  });

  test('goal.checks_allowed: the agent check its pattern lets in is never run', async () => {
    forgeEvent(s.kernel.db, { kind: 'goal.checks_allowed', goalId, todoId: null, data: { patterns: ['touch *'], from: [] } }, { at: at() });
    const m = agentCheck('pattern-ran');
    expect(m.approval).toBe('pattern');
    await tickMonitors(s.kernel);
    expect(ran('pattern-ran')).toBe(false);
    expect(unproven().map((d) => d.kind)).toEqual(['goal.checks_allowed']);
  });

  test('gate.decided: named, and no turn of the goal starts', () => {
    const todoId = addTodo(s.kernel, { goalId, title: 'Migrate' }).id;
    const gate = askGate(s.as(codex), { todoId, question: 'Drop the table?' });
    forgeEvent(s.kernel.db, { kind: 'gate.decided', goalId, todoId, data: { id: gate.id, status: 'approved', note: null } }, { at: at() });
    expect(unproven().map((d) => d.kind)).toEqual(['gate.decided']);
    expect(() => s.kernel.read((db) => requireTurnMayStart(db, goalId))).toThrow(
      expect.objectContaining({ code: 'unproven_decision', message: expect.stringMatching(/gate\.decided by ada via vscode/) }),
    );
  });

  test('hook.added: the hook never runs for the event it waits for', async () => {
    forgeEvent(
      s.kernel.db,
      {
        kind: 'hook.added',
        goalId: null,
        todoId: null,
        data: {
          id: 'N1',
          num: 1,
          command: `touch ${join(s.root, 'hook-ran')}`,
          on: ['gate.asked'],
          goal: null,
          timeoutSeconds: 30,
          note: '',
        },
      },
      { at: at() },
    );
    expect(listHooks(s.kernel.db)).toHaveLength(1);
    askGate(s.as(codex), { goalId, question: 'Ship it?' });
    const errors: unknown[] = [];
    const reports = await dispatchHooks(s.kernel, { by: 'test', onError: (e) => errors.push(e) });
    expect(reports).toEqual([]);
    expect(errors).toEqual([expect.objectContaining({ code: 'unproven_decision' })]);
    expect(ran('hook-ran')).toBe(false);
    expect(unproven().map((d) => d.kind)).toEqual(['hook.added']);
  });

  test("goal.check_set: evidence run --check refuses to run it; the person's own check runs", async () => {
    const todoId = addTodo(s.kernel, { goalId, title: 'Build' }).id;
    claimTodo(s.as(codex), todoId);
    forgeEvent(
      s.kernel.db,
      { kind: 'goal.check_set', goalId, todoId: null, data: { check: `touch ${join(s.root, 'check-ran')}`, from: null } },
      { at: at() },
    );
    await expect(runEvidence(s.as(codex), { todoId, check: true })).rejects.toMatchObject({ code: 'unproven_decision' });
    expect(ran('check-ran')).toBe(false);
    setGoalCheck(s.as(human), goalId, `touch ${join(s.root, 'real-check-ran')}`);
    await runEvidence(s.as(codex), { todoId, check: true });
    expect(ran('real-check-ran')).toBe(true);
  });

  test('a goal made active by an agent-kind event after a person paused it starts no turn', () => {
    setGoalStatus(s.as(human), goalId, 'paused');
    forgeEvent(
      s.kernel.db,
      { kind: 'goal.status', goalId, todoId: null, data: { status: 'active', from: 'paused' } },
      {
        at: at(),
        actor: 'codex',
        actorKind: 'agent',
        channel: null,
      },
    );
    expect(() => s.kernel.read((db) => requireTurnMayStart(db, goalId))).toThrow(/only a person may/);
  });
});

describe('the upgrade: a person accepts the decisions that carry no proof, an agent cannot', () => {
  test('log accept takes them as they are (recorded with its own proof); a later forgery is named again', async () => {
    const m = agentCheck('accepted-ran');
    forgeEvent(
      s.kernel.db,
      { kind: 'monitor.approved', goalId, todoId: m.todoId, data: { id: m.id, command: m.check as string, pattern: null } },
      { at: at() },
    );
    expect(() => acceptBrokenLog(s.as(codex))).toThrow(expect.objectContaining({ code: 'not_allowed' }));
    const accepted = acceptBrokenLog(s.as(human));
    expect(accepted).toMatchObject({
      accepted: true,
      firstBadSeq: null,
      decisions: [expect.objectContaining({ kind: 'monitor.approved' })],
    });
    expect(unproven()).toEqual([]);
    await tickMonitors(s.kernel);
    expect(ran('accepted-ran')).toBe(true);
    const later = forgeEvent(
      s.kernel.db,
      { kind: 'goal.checks_allowed', goalId, todoId: null, data: { patterns: ['x *'], from: [] } },
      { at: at() },
    );
    expect(unproven().map((d) => d.seq)).toEqual([later]);
  });

  test('an acceptance forged with SQL (even with a correct digest) counts for nothing', () => {
    const forged = forgeEvent(
      s.kernel.db,
      { kind: 'goal.checks_allowed', goalId, todoId: null, data: { patterns: ['a *'], from: [] } },
      { at: at() },
    );
    const real = acceptBrokenLog(s.as(human));
    // A second forgery, then the real acceptance's data (its proof too, replayed) on a forged one: the forger has no key.
    const data = JSON.parse(String(s.kernel.db.prepare('SELECT data FROM events WHERE seq = ?').get(real.seq)?.data)) as Record<
      string,
      unknown
    >;
    const second = forgeEvent(
      s.kernel.db,
      { kind: 'goal.checks_allowed', goalId, todoId: null, data: { patterns: ['b *'], from: [] } },
      { at: at() },
    );
    const { channel: _c, ...rest } = data;
    forgeEvent(
      s.kernel.db,
      { kind: 'log.accepted', goalId: null, todoId: null, data: { ...rest, decisionsThrough: second } as never },
      { at: at() },
    );
    expect(unproven().map((d) => d.seq)).toEqual([second, second + 1]);
    expect(unproven().map((d) => d.seq)).not.toContain(forged);
  });

  test('a decision edited in place below an acceptance voids the acceptance', () => {
    const forged = forgeEvent(
      s.kernel.db,
      { kind: 'goal.checks_allowed', goalId, todoId: null, data: { patterns: ['a *'], from: [] } },
      { at: at() },
    );
    acceptBrokenLog(s.as(human));
    expect(unproven()).toEqual([]);
    s.kernel.db.prepare(`UPDATE events SET data = replace(data, 'a *', 'touch *') WHERE seq = ?`).run(forged);
    expect(unproven().map((d) => d.seq)).toEqual([forged]);
  });

  test("another machine's key proves nothing here: its decisions are unproven until a person here accepts them", () => {
    const m = agentCheck('elsewhere');
    approveMonitor(s.as(human), m.id);
    expect(unproven()).toEqual([]);
    const mine = process.env.LOOPX_CONFIG_DIR;
    process.env.LOOPX_CONFIG_DIR = mkdtempSync(join(tmpdir(), 'loopx-other-machine-'));
    try {
      expect(unproven().map((d) => [d.kind, d.proof])).toEqual([
        ['goal.created', 'none'],
        ['todo.added', 'none'],
        ['monitor.approved', 'none'],
      ]);
      acceptBrokenLog(s.as(human));
      expect(unproven()).toEqual([]);
    } finally {
      process.env.LOOPX_CONFIG_DIR = mine;
    }
    // Back on the first machine, the other person's acceptance is itself a decision its key does not prove.
    expect(unproven().map((d) => d.kind)).toEqual(['log.accepted']);
  });
});

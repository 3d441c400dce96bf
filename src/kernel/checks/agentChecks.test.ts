import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, bareHuman, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo } from '../todos/todos';
import { claimTodo } from '../todos/claims';
import { addMonitor, allowChecks, approveMonitor } from '../monitors/monitors';
import { tickMonitors } from '../monitors/tick';
import { getMonitor } from '../monitors/monitorQueries';
import { readiness, getTodo } from '../todos/todoQueries';
import { checkMatches } from '../monitors/checkPatterns';
import { checkReplay } from '../replay';
import { verifyChain } from '../events/verify';
import { getGoal } from '../goals/goalQueries';

/** A person's decision carries a proof under this machine's key (decisions.ts). */
const PROOF = { key: expect.stringMatching(/^[0-9a-f]{16}$/), mac: expect.stringMatching(/^[0-9a-f]{64}$/) };

let s: TestStore;
const codex = agent('codex');
let goalId: string;
beforeEach(() => {
  s = makeStore();
  goalId = createGoal(s.kernel, { title: 'Deploy', turnsPerWindow: 10 }).id;
});
afterEach(() => s.dispose());

/** A todo an agent holds, and a check it sets that would leave a file behind if it ever ran. */
function agentCheck(name: string, command = `touch ${join(s.root, name)}`) {
  const todo = addTodo(s.kernel, { goalId, title: name }).id;
  claimTodo(s.as(codex), todo);
  return addMonitor(s.as(codex), { todoId: todo, check: command, everySeconds: 10 });
}
const ran = (name: string) => existsSync(join(s.root, name));
const eventData = (kind: string) =>
  s.kernel.db
    .prepare('SELECT data FROM events WHERE kind = ? ORDER BY seq')
    .all(kind)
    .map((r) => JSON.parse(String(r.data)) as Record<string, unknown>);

describe('a check an agent sets carries no more authority than the agent had', () => {
  test('outside the allowed patterns it waits for a person: never run by a tick, the todo waits and says why', async () => {
    const m = agentCheck('agent-ran');
    expect(m).toMatchObject({ approval: 'pending', approvedBy: null });
    await tickMonitors(s.kernel);
    s.clock.advance(60);
    const tick = await tickMonitors(s.kernel);
    expect(tick.runs).toEqual([]);
    expect(ran('agent-ran')).toBe(false);
    expect(getMonitor(s.kernel.db, m.id)).toMatchObject({ status: 'waiting', runCount: 0 });
    expect(
      (readiness(s.kernel.db, getTodo(s.kernel.db, m.todoId), new Date(s.clock.ms).toISOString()) as { detail: string }).detail,
    ).toMatch(/waits for a person to allow it/);
  });

  test('a person approves it (channel recorded): it runs at the next tick', async () => {
    const m = agentCheck('approved-ran');
    expect(() => approveMonitor(s.as(codex), m.id)).toThrow(/human decision/);
    expect(() => approveMonitor(s.as(bareHuman), m.id)).toThrow(expect.objectContaining({ code: 'human_channel_required' }));
    expect(approveMonitor(s.kernel, m.id)).toMatchObject({ approval: 'approved', approvedBy: 'ada', approvalChannel: 'vscode' });
    expect(eventData('monitor.approved')).toEqual([{ id: m.id, command: m.check, pattern: null, channel: 'vscode', proof: PROOF }]);
    const tick = await tickMonitors(s.kernel);
    expect(tick.runs.map((r) => r.monitorId)).toEqual([m.id]);
    expect(ran('approved-ran')).toBe(true);
    expect(() => approveMonitor(s.kernel, m.id)).toThrow(/not waiting|does not wait/);
  });

  test('a check matching a pattern a person allowed for the goal runs unasked; a pattern never stretches over ; | $( )', async () => {
    expect(() => allowChecks(s.as(codex), goalId, ['touch *'])).toThrow(/person's decision/);
    expect(() => allowChecks(s.as(bareHuman), goalId, ['touch *'])).toThrow(expect.objectContaining({ code: 'human_channel_required' }));
    expect(() => allowChecks(s.kernel, goalId, ['*'])).toThrow(/would allow any command/);
    allowChecks(s.kernel, goalId, [`touch ${s.root}/allowed-*`]);
    expect(getGoal(s.kernel.db, goalId).allowedChecks).toEqual([`touch ${s.root}/allowed-*`]);
    const ok = agentCheck('allowed-1');
    const smuggled = agentCheck('x', `touch ${s.root}/allowed-2; touch ${s.root}/smuggled`);
    expect(ok).toMatchObject({ approval: 'pattern', approvedBy: `touch ${s.root}/allowed-*` });
    expect(smuggled.approval).toBe('pending');
    await tickMonitors(s.kernel);
    expect(ran('allowed-1')).toBe(true);
    expect(ran('smuggled')).toBe(false);
    for (const cmd of [
      'gh run view 1; rm -rf ~',
      'gh run view 1 && sh',
      'gh run view 1 | sh',
      'gh run view $(id)',
      'gh run view `id`',
      'gh run view 1\nid',
      'gh run view 1 > ~/.bashrc',
    ])
      expect(checkMatches('gh run view *', cmd), cmd).toBe(false);
    expect(checkMatches('gh run view *', 'gh run view 1234 --exit-status')).toBe(true);
    expect(checkMatches('npm test -- *', "npm test -- 'quoted name'")).toBe(true);
  });

  test("allowing a pattern later lets the waiting checks it covers run; a person's own check ran all along", async () => {
    const waiting = agentCheck('later');
    const own = addTodo(s.kernel, { goalId, title: 'mine' }).id;
    const mine = addMonitor(s.kernel, { todoId: own, check: `touch ${join(s.root, 'mine')}` });
    expect(mine).toMatchObject({ approval: 'person', approvedBy: 'ada' });
    allowChecks(s.kernel, goalId, ['touch *']);
    expect(getMonitor(s.kernel.db, waiting.id)).toMatchObject({ approval: 'pattern', approvedBy: 'touch *' });
    await tickMonitors(s.kernel);
    expect(ran('later')).toBe(true);
    expect(ran('mine')).toBe(true);
    // A "person" without a channel (an agent that unset LOOPX_AGENT) is not a person here either.
    allowChecks(s.kernel, goalId, []);
    const bare = addTodo(s.kernel, { goalId, title: 'bare' }).id;
    expect(addMonitor(s.as(bareHuman), { todoId: bare, check: 'touch bare' }).approval).toBe('pending');
    expect(verifyChain(s.kernel.db).ok).toBe(true);
    expect(checkReplay(s.kernel.db)).toMatchObject({ ok: true });
  });
});

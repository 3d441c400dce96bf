import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, human, makeStore, type TestStore } from '../../../test/support/testKit';
import type { Kernel } from '../kernel';
import { createGoal, setGoalStatus } from '../goals/goals';
import { addTodo, blockTodo, killTodo, shipTodo } from '../todos/todos';
import { claimNext, claimTodo } from '../todos/claims';
import { startTurn } from '../turns/turns';
import { finishTurn } from '../turns/turnFinish';
import { type MonitorInput, addMonitor, approveMonitor, cancelMonitor } from './monitors';
import { tickMonitors } from './tick';
import { getMonitor, listMonitors, monitorRuns } from './monitorQueries';
import { nextClaimable, readiness, getTodo } from '../todos/todoQueries';
import { shouldRun } from '../goals/quotaQueries';
import { statusReport } from '../readModels/status';
import { renderStatusMd } from '../../runtime/projections/statusMd';
import { verifyChain } from '../events/verify';
import { checkReplay } from '../replay';
import { iso } from '../time';
import { sha256 } from '../nodeCrypto';
import { getGoal } from '../goals/goalQueries';

let s: TestStore;
const codex = agent('codex');
const claude = agent('claude');
let goalId: string;
beforeEach(() => {
  s = makeStore();
  goalId = createGoal(s.kernel, { title: 'Deploy', turnsPerWindow: 10 }).id;
});
afterEach(() => s.dispose());

/** An agent's check that a person then allowed (what an agent may set on its own is in agentChecks.test.ts). */
function addAllowed(k: Kernel, input: MonitorInput) {
  const m = addMonitor(k, input);
  return m.approval === 'pending' ? approveMonitor(s.kernel, m.id) : m;
}
const eventCount = () => Number(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n);
const add = (title: string) => addTodo(s.kernel, { goalId, title }).id;
const now = () => iso(s.clock.ms);
const answer = () => shouldRun(s.kernel.db, getGoal(s.kernel.db, goalId), s.clock.ms);
const tick = () => tickMonitors(s.kernel);
const file = (name: string) => join(s.root, name);
/** Is the process still running? (A killed one may linger as a zombie where nothing reaps orphans.) */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}
/** Is a live process's command line this one (Linux's /proc)? */
function runningWith(cmdline: string): boolean {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .some((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, 'utf8').startsWith(cmdline) && alive(Number(d));
      } catch {
        return false;
      }
    });
}
/** A todo held by codex, with a monitor on it (the usual way: the agent kicks off a job and waits for it). */
function waiting(check: string, extra: Partial<Parameters<typeof addMonitor>[1]> = {}): { todo: string; monitor: string } {
  const todo = add('Wait for CI');
  claimTodo(s.as(codex), todo);
  const monitor = addAllowed(s.as(codex), { todoId: todo, check, everySeconds: 60, note: 'CI run 1234 started', ...extra }).id;
  return { todo, monitor };
}

describe('monitor add', () => {
  test('the holder adds it: the claim is released with a continuation naming it, and the todo waits', () => {
    const other = add('Something else');
    const { todo, monitor } = waiting('test -f ci-done', { until: 'exit0', timeoutSeconds: 6 * 3600 });
    expect(monitor).toBe('M1');
    expect(getMonitor(s.kernel.db, monitor)).toMatchObject({
      id: 'M1',
      goalId,
      todoId: todo,
      kind: 'check',
      check: 'test -f ci-done',
      everySeconds: 60,
      until: 'exit0',
      status: 'waiting',
      addedBy: 'codex',
      nextCheckAt: now(),
      expiresAt: iso(s.clock.ms + 6 * 3600_000),
      runCount: 0,
      lastRun: null,
      runLimitSeconds: 60,
    });
    expect(getTodo(s.kernel.db, todo)).toMatchObject({
      status: 'open',
      owner: null,
      continuation: expect.stringContaining('Waiting on monitor M1'),
    });
    expect(getTodo(s.kernel.db, todo).continuation).toContain('CI run 1234 started');
    // Not ready, not claimable, skipped by todo next and claim --next.
    expect(readiness(s.kernel.db, getTodo(s.kernel.db, todo), now())).toMatchObject({ ready: false, why: 'monitor', ids: ['M1'] });
    expect(() => claimTodo(s.as(claude), todo)).toThrow(
      expect.objectContaining({ code: 'not_ready', message: expect.stringContaining('monitor M1') }),
    );
    expect(nextClaimable(s.kernel.db, now())?.id).toBe(other);
    expect(claimNext(s.as(claude)).todo.id).toBe(other);
    expect(() => claimNext(s.as(agent('third')))).toThrow(expect.objectContaining({ code: 'no_ready_work' }));
  });

  test('should-run skips a waiting todo and wakes at the next check', async () => {
    waiting('exit 1', { everySeconds: 300 });
    expect(answer()).toMatchObject({ run: false, reason: 'no_ready_work', nextWakeAt: now() });
    await tick();
    expect(answer()).toMatchObject({ run: false, reason: 'no_ready_work', nextWakeAt: iso(s.clock.ms + 300_000) });
  });

  test('a human may put an open or claimed todo to wait; another agent may not', () => {
    const open = add('open');
    expect(() => addMonitor(s.as(codex), { todoId: open, afterSeconds: 60 })).toThrow(expect.objectContaining({ code: 'lease_lost' }));
    expect(addMonitor(s.kernel, { todoId: open, afterSeconds: 60 })).toMatchObject({ kind: 'timer', addedBy: 'ada', until: 'time' });
    const held = add('held');
    claimTodo(s.as(codex), held);
    expect(() => addMonitor(s.as(claude), { todoId: held, check: 'true' })).toThrow(expect.objectContaining({ code: 'lease_lost' }));
    addMonitor(s.kernel, { todoId: held, check: 'true' });
    expect(getTodo(s.kernel.db, held)).toMatchObject({ status: 'open', owner: null });
  });

  test('bad input and impossible requests change nothing', () => {
    const t = add('t');
    claimTodo(s.as(codex), t);
    const shipped = add('shipped');
    claimTodo(s.as(claude), shipped);
    shipTodo(s.as(claude), shipped, { evidence: 'done' });
    const blocked = add('blocked');
    blockTodo(s.kernel, blocked, 'no key');
    const before = eventCount();
    const k = s.as(codex);
    for (const [input, code] of [
      [{ todoId: t }, 'invalid_input'],
      [{ todoId: t, check: 'true', afterSeconds: 60 }, 'invalid_input'],
      [{ todoId: t, check: '   ' }, 'invalid_input'],
      [{ todoId: t, check: 'true', until: 'exit1' }, 'invalid_input'],
      [{ todoId: t, check: 'true', until: 'match:(' }, 'invalid_input'],
      [{ todoId: t, check: 'true', until: 'match:a\u001b]0;x\u0007' }, 'invalid_input'],
      [{ todoId: t, check: 'true', everySeconds: 5 }, 'invalid_input'],
      [{ todoId: t, check: 'true', runLimitSeconds: 7200 }, 'invalid_input'],
      [{ todoId: t, afterSeconds: 60, everySeconds: 60 }, 'invalid_input'],
      [{ todoId: t, afterSeconds: 60, runLimitSeconds: 60 }, 'invalid_input'],
      [{ todoId: t, check: 'line\u001b[31m' }, 'invalid_input'],
      [{ todoId: 'T99', check: 'true' }, 'not_found'],
    ] as const) {
      expect(() => addMonitor(k, input)).toThrow(expect.objectContaining({ code }));
    }
    expect(() => addMonitor(s.kernel, { todoId: shipped, check: 'true' })).toThrow(
      expect.objectContaining({ code: 'illegal_transition', exitCode: 3 }),
    );
    expect(() => addMonitor(s.kernel, { todoId: blocked, check: 'true' })).toThrow(expect.objectContaining({ code: 'illegal_transition' }));
    expect(eventCount()).toBe(before);
    addMonitor(k, { todoId: t, check: 'true' });
    const after = eventCount();
    expect(() => addMonitor(s.kernel, { todoId: t, afterSeconds: 60 })).toThrow(
      expect.objectContaining({ code: 'illegal_transition', hint: expect.stringContaining('monitor cancel M1') }),
    );
    expect(eventCount()).toBe(after);
  });
});

describe('monitor tick', () => {
  test('a failing check is recorded and waits; once the condition holds it fires and the todo is ready with the result', async () => {
    const { todo, monitor } = waiting('test -f ci-done && echo "all 48 jobs green"', { everySeconds: 120 });
    const first = await tick();
    expect(first.runs).toMatchObject([
      { monitorId: monitor, todoId: todo, n: 1, exitCode: 1, timedOut: false, error: null, outcome: 'waiting' },
    ]);
    expect(first.nextCheckAt).toBe(iso(s.clock.ms + 120_000));
    expect(getMonitor(s.kernel.db, monitor)).toMatchObject({ status: 'waiting', runCount: 1, lastRun: { n: 1, exitCode: 1 } });
    // Not due again until the interval has passed: a tick now runs nothing and writes nothing.
    const before = eventCount();
    expect((await tick()).runs).toEqual([]);
    expect(eventCount()).toBe(before);
    writeFileSync(file('ci-done'), '');
    s.clock.advance(120);
    const second = await tick();
    expect(second).toMatchObject({ runs: [{ n: 2, exitCode: 0, outcome: 'fired' }], fired: [monitor], nextCheckAt: null });
    const m = getMonitor(s.kernel.db, monitor);
    expect(m).toMatchObject({ status: 'fired', endedBy: 'kernel', nextCheckAt: null, result: expect.stringContaining('the check passed') });
    const t = getTodo(s.kernel.db, todo);
    expect(t.continuation).toContain('Monitor M1 fired');
    expect(t.continuation).toContain('all 48 jobs green');
    expect(t.continuation).toContain('CI run 1234 started');
    expect(nextClaimable(s.kernel.db, now())?.id).toBe(todo);
    expect(monitorRuns(s.kernel.db, monitor).map((r) => r.exitCode)).toEqual([0, 1]);
    const fired = s.kernel.db.prepare(`SELECT actor_kind, goal_id, data FROM events WHERE kind = 'monitor.fired'`).get();
    expect(fired).toMatchObject({ actor_kind: 'kernel', goal_id: goalId });
    expect(JSON.parse(String(fired?.data))).toMatchObject({ reason: 'exit0', run: 2 });
  });

  test('handing a todo to a monitor holds up nothing: the goal’s other work runs at once, and the todo as soon as it fires', async () => {
    const other = add('other work');
    const todo = add('Deploy');
    const { turn } = startTurn(s.kernel, { goalId, host: 'codex', todoId: todo });
    addAllowed(s.as(codex), { todoId: todo, check: 'test -f deployed', everySeconds: 60 });
    expect(finishTurn(s.kernel, turn.id, 0)).toMatchObject({ resultKind: 'wait', spent: false });
    expect(answer()).toMatchObject({ run: true, reason: 'ok' });
    const next = startTurn(s.kernel, { goalId, host: 'codex' }).turn;
    expect(next.todoId).toBe(other);
    shipTodo(s.as(codex), other, { evidence: 'done' });
    finishTurn(s.kernel, next.id, 0);
    await tick();
    s.clock.advance(60);
    await tick();
    expect(answer()).toMatchObject({ run: false, reason: 'no_ready_work' });
    writeFileSync(file('deployed'), '');
    s.clock.advance(60);
    expect((await tick()).fired).toEqual(['M1']);
    expect(answer()).toMatchObject({ run: true, reason: 'ok' });
    expect(startTurn(s.kernel, { goalId, host: 'codex' }).turn.todoId).toBe(todo);
  });

  test('no turn can start on a waiting todo, and 0 turns are spent while it waits', async () => {
    const { todo } = waiting('exit 1');
    expect(() => startTurn(s.kernel, { goalId, host: 'codex' })).toThrow(expect.objectContaining({ code: 'should_not_run' }));
    expect(() => startTurn(s.kernel, { goalId, host: 'codex', todoId: todo })).toThrow(expect.objectContaining({ code: 'should_not_run' }));
    for (let i = 0; i < 5; i++) {
      await tick();
      s.clock.advance(60);
    }
    expect(Number(s.kernel.db.prepare('SELECT count(*) AS n FROM quota_spends').get()?.n)).toBe(0);
    expect(Number(s.kernel.db.prepare('SELECT count(*) AS n FROM turns').get()?.n)).toBe(0);
  });

  test('a pure timer fires at its time, without running anything', async () => {
    const t = add('Look again later');
    claimTodo(s.as(codex), t);
    addMonitor(s.as(codex), { todoId: t, afterSeconds: 2 * 3600, note: 'the nightly job runs at 02:00' });
    expect(answer()).toMatchObject({ reason: 'no_ready_work', nextWakeAt: iso(s.clock.ms + 2 * 3600_000) });
    s.clock.advance(2 * 3600 - 1);
    expect(await tick()).toMatchObject({ runs: [], fired: [] });
    s.clock.advance(1);
    expect(await tick()).toMatchObject({ runs: [], fired: ['M1'] });
    expect(getTodo(s.kernel.db, t).continuation).toMatch(/Monitor M1 fired: its timer ran out[\s\S]*nightly job/);
    expect(answer()).toMatchObject({ run: true });
  });

  test('a timer with a shorter timeout expires instead of firing', async () => {
    const t = add('Wait for the vendor');
    addMonitor(s.kernel, { todoId: t, afterSeconds: 7200, timeoutSeconds: 3600 });
    expect(answer().nextWakeAt).toBe(iso(s.clock.ms + 3600_000));
    s.clock.advance(7200);
    expect(await tick()).toMatchObject({ fired: [], expired: ['M1'] });
    expect(getMonitor(s.kernel.db, 'M1').status).toBe('expired');
  });

  test('past its timeout a monitor expires, saying so, and the todo is ready again', async () => {
    const { todo, monitor } = waiting('echo still running; exit 3', { everySeconds: 600, timeoutSeconds: 1800 });
    await tick();
    s.clock.advance(600);
    await tick();
    expect(answer().nextWakeAt).toBe(iso(s.clock.ms + 600_000));
    s.clock.advance(1200);
    const result = await tick();
    expect(result.expired).toEqual([monitor]);
    expect(result.runs).toEqual([]);
    expect(getMonitor(s.kernel.db, monitor)).toMatchObject({
      status: 'expired',
      result: expect.stringContaining('after 2 runs without exit0 holding'),
    });
    const continuation = getTodo(s.kernel.db, todo).continuation;
    expect(continuation).toContain('expired');
    expect(continuation).toContain('exited 3');
    expect(continuation).toContain('still running');
    expect(nextClaimable(s.kernel.db, now())?.id).toBe(todo);
  });

  test('change fires at the first run whose output differs from the first; match fires when the output matches', async () => {
    writeFileSync(file('state.txt'), 'deploying\n');
    const changed = waiting('cat state.txt', { until: 'change' }).monitor;
    const matchTodo = add('match');
    claimTodo(s.as(claude), matchTodo);
    const matched = addAllowed(s.as(claude), {
      todoId: matchTodo,
      check: 'printf "rollout: 3/3 ready\\n"',
      until: 'match:^rollout: (\\d)/\\1 ready$',
    }).id;
    expect((await tick()).fired).toEqual([matched]);
    expect(getMonitor(s.kernel.db, matched).result).toContain('the output matched');
    s.clock.advance(60);
    expect((await tick()).fired).toEqual([]);
    writeFileSync(file('state.txt'), 'deployed\n');
    s.clock.advance(60);
    expect((await tick()).fired).toEqual([changed]);
    expect(getMonitor(s.kernel.db, changed).result).toContain('the output changed');
  });

  test('a check that hangs is killed at its run limit, with everything it started; the run says why', async () => {
    const { monitor, todo } = waiting('sleep 31.7 & echo $! > child.pid; echo started; sleep 30', { runLimitSeconds: 2 });
    const started = Date.now();
    const result = await tick();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.runs).toMatchObject([
      { exitCode: null, timedOut: true, error: expect.stringContaining('time limit of 2 s'), outcome: 'waiting' },
    ]);
    // The background sleep went with the group (SIGKILL is delivered at once; under load, give it a moment to be gone).
    // In the sandbox its pid is the PID namespace's, so on Linux it is looked for by its command line.
    const child = Number(readFileSync(file('child.pid'), 'utf8'));
    const gone = () => (existsSync('/proc/self/cmdline') ? !runningWith('sleep\u000031.7') : !alive(child));
    for (let i = 0; i < 40 && !gone(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(gone()).toBe(true);
    const m = getMonitor(s.kernel.db, monitor);
    expect(m.lastRun).toMatchObject({ timedOut: true, outputTail: expect.stringContaining('started') });
    // It goes to the attention list: a check that cannot run needs a person.
    expect(renderStatusMd(statusReport(s.kernel.db, s.clock.ms))).toContain(`Monitor ${monitor} on ${todo} cannot run its check`);
  });

  test('a check that is not found is recorded as such and never fires', async () => {
    const { monitor } = waiting('no-such-command-loopx --version', { until: 'change' });
    const result = await tick();
    expect(result.runs).toMatchObject([{ exitCode: 127, error: expect.stringContaining('command not found'), outcome: 'waiting' }]);
    s.clock.advance(60);
    expect((await tick()).fired).toEqual([]);
    expect(getMonitor(s.kernel.db, monitor).status).toBe('waiting');
  });

  test('output is capped to a tail and hashed in full; checks run from the workspace root with the LOOPX_ variables', async () => {
    const big = waiting(`node -e "process.stdout.write('x'.repeat(100000) + '\\nEND')"`, { until: 'change' }).monitor;
    const t = add('env');
    claimTodo(s.as(codex), t);
    const env = addAllowed(s.as(codex), {
      todoId: t,
      check: 'pwd; echo "$LOOPX_MONITOR $LOOPX_TODO $LOOPX_GOAL $LOOPX_ROOT agent=${LOOPX_AGENT:-none}"',
      until: 'change',
    }).id;
    await tickMonitors(s.kernel, { env: { ...process.env, LOOPX_AGENT: 'codex' } });
    const run = getMonitor(s.kernel.db, big).lastRun;
    expect(run?.outputTail.length).toBe(2000);
    expect(run?.outputTail.endsWith('END')).toBe(true);
    expect(run?.outputSha256).toBe(sha256(`${'x'.repeat(100000)}\nEND`));
    const lines = getMonitor(s.kernel.db, env).lastRun?.outputTail.trim().split('\n');
    expect(lines).toEqual([s.root, `${env} ${t} ${goalId} ${s.root} agent=none`]);
  });

  test('checks of a paused goal wait with it', async () => {
    const { monitor } = waiting('true');
    setGoalStatus(s.kernel, goalId, 'paused');
    expect((await tick()).runs).toEqual([]);
    setGoalStatus(s.kernel, goalId, 'active');
    expect((await tick()).fired).toEqual([monitor]);
  });

  test('two tickers on two connections at once run each due check exactly once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const t = add(`job ${i}`);
      ids.push(addMonitor(s.kernel, { todoId: t, check: `echo ${i} >> runs.log; sleep 0.2; exit 1` }).id);
    }
    const other = s.open({ clock: s.clock.now, actor: human });
    try {
      const [a, b] = await Promise.all([tickMonitors(s.kernel, { concurrency: 2 }), tickMonitors(other, { concurrency: 2 })]);
      expect([...a.runs, ...b.runs].map((r) => r.monitorId).sort()).toEqual([...ids].sort());
      expect(readFileSync(file('runs.log'), 'utf8').trim().split('\n').sort()).toEqual(['0', '1', '2', '3', '4', '5']);
    } finally {
      other.close();
    }
  });
});

describe('cancel and kill', () => {
  test('the agent that added it or a human may cancel; the todo is ready again', () => {
    const { todo, monitor } = waiting('exit 1');
    expect(() => cancelMonitor(s.as(claude), monitor)).toThrow(expect.objectContaining({ code: 'not_allowed' }));
    const cancelled = cancelMonitor(s.as(codex), monitor, 'CI was re-run by hand');
    expect(cancelled).toMatchObject({ status: 'cancelled', endedBy: 'codex', result: 'cancelled by codex: CI was re-run by hand' });
    expect(getTodo(s.kernel.db, todo).continuation).toContain('was cancelled by codex');
    expect(nextClaimable(s.kernel.db, now())?.id).toBe(todo);
    expect(() => cancelMonitor(s.kernel, monitor)).toThrow(expect.objectContaining({ code: 'illegal_transition' }));
    const second = addMonitor(s.kernel, { todoId: todo, afterSeconds: 60 }).id;
    expect(cancelMonitor(s.kernel, second).status).toBe('cancelled');
  });

  test('killing a waiting todo cancels its monitor', async () => {
    const { todo, monitor } = waiting('true');
    killTodo(s.kernel, todo, 'not needed');
    expect(getMonitor(s.kernel.db, monitor)).toMatchObject({ status: 'cancelled', result: 'todo killed: not needed' });
    expect((await tick()).runs).toEqual([]);
  });
});

test('monitors replay like everything else, and list in order', async () => {
  writeFileSync(file('flag'), '');
  waiting('test -f flag');
  const t = add('timer');
  addMonitor(s.kernel, { todoId: t, afterSeconds: 30 });
  const u = add('cancel me');
  cancelMonitor(s.kernel, addMonitor(s.kernel, { todoId: u, check: 'exit 1' }).id);
  await tick();
  s.clock.advance(30);
  await tick();
  expect(listMonitors(s.kernel.db).map((m) => `${m.id}:${m.status}`)).toEqual(['M3:cancelled', 'M2:fired', 'M1:fired']);
  expect(verifyChain(s.kernel.db).ok).toBe(true);
  expect(checkReplay(s.kernel.db).differences).toEqual([]);
  expect(existsSync(file('flag'))).toBe(true);
});

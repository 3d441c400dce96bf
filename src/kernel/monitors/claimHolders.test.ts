import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo } from '../todos/todos';
import { claimTodo } from '../todos/claims';
import { addMonitor } from './monitors';
import { claimDueRun } from './tickSteps';
import { tickMonitors } from './tick';
import { getMonitor } from './monitorQueries';
import { processAlive, processStart } from '../processes';
import { type ClaimHolder, othersRunChecksHere, thisTicker } from './claimHolders';
import { iso } from '../time';

/**
 * A ticker killed while it runs a check (kill -9 of `loopx run`, a crashed window) leaves the check claimed until
 * the claim's deadline (its run limit plus 30 s). Its claim names the process, so the next tick on the same machine
 * takes the run over at once when that process is gone; the fake clock never moves here, so no lease lapses.
 */
let s: TestStore;
let monitorId: string;
const children: ReturnType<typeof spawn>[] = [];
beforeEach(() => {
  s = makeStore();
  const goalId = createGoal(s.kernel, { title: 'Deploy' }).id;
  const todoId = addTodo(s.kernel, { goalId, title: 'Wait for CI' }).id;
  claimTodo(s.as(agent('codex')), todoId);
  monitorId = addMonitor(s.kernel, { todoId, check: 'echo done', everySeconds: 600, runLimitSeconds: 600 }).id; // a person's check
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  s.dispose();
});

/** A real process on this machine that stays up until the test ends. */
function liveProcess(): ClaimHolder {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120_000)'], { stdio: 'ignore' });
  children.push(child);
  const pid = child.pid as number;
  return { host: hostname(), pid, start: processStart(pid) };
}

/** A process that held a claim and was killed with -9, as a ticker is. */
async function deadProcess(): Promise<ClaimHolder> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120_000)'], { stdio: 'ignore' });
  const pid = child.pid as number;
  const holder = { host: hostname(), pid, start: processStart(pid) };
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  expect(processAlive(pid, holder.start)).toBe(false);
  return holder;
}

test("a check claimed by a ticker that was killed is run by the next tick at once, without waiting for the claim's deadline", async () => {
  const claim = claimDueRun(s.kernel, new Set(), await deadProcess());
  expect(claim).toMatchObject({ monitor: { id: monitorId } });
  expect(getMonitor(s.kernel.db, monitorId).runningUntil).not.toBeNull();
  const tick = await tickMonitors(s.kernel);
  expect(tick.runs).toMatchObject([{ monitorId, exitCode: 0, outcome: 'fired' }]);
  expect(tick.fired).toEqual([monitorId]);
});

test('a claim whose ticker still runs, or runs on another machine, is left alone until its deadline', async () => {
  claimDueRun(s.kernel, new Set(), liveProcess());
  expect((await tickMonitors(s.kernel)).runs).toEqual([]);
  const elsewhere = { ...(await deadProcess()), host: `not-${hostname()}` };
  s.clock.advance(630); // the first claim lapsed: the next one is taken by a ticker on another machine, then it dies
  expect(claimDueRun(s.kernel, new Set(), elsewhere)).toMatchObject({ monitor: { id: monitorId } });
  expect((await tickMonitors(s.kernel)).runs).toEqual([]);
  expect(getMonitor(s.kernel.db, monitorId).status).toBe('waiting');
});

test('a runner that stays up is told while another live process here runs a check, so it looks again soon', async () => {
  const heldElsewhere = () => othersRunChecksHere(s.kernel.db, iso(s.clock.ms));
  expect(heldElsewhere()).toBe(false); // nothing claimed
  claimDueRun(s.kernel, new Set(), thisTicker());
  expect(heldElsewhere()).toBe(false); // its own claim
  s.clock.advance(630);
  claimDueRun(s.kernel, new Set(), liveProcess());
  expect(heldElsewhere()).toBe(true);
  s.clock.advance(630);
  claimDueRun(s.kernel, new Set(), await deadProcess());
  expect(heldElsewhere()).toBe(false); // gone: the next tick takes it over instead
});

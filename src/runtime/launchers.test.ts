import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../test/support/testKit';
import { createGoal } from '../kernel/goals/goals';
import { addTodo } from '../kernel/todos/todos';
import { addEvidence } from '../kernel/evidence/evidence';
import { startTurn } from '../kernel/turns/turns';
import { turnDir } from '../kernel/turns/turnRecord';
import { EXIT_CODE_FILE, abandonedTurns, adoptOrphan, launcherState, processAlive, settleAbandoned, writeLauncher } from './launchers';
import { getTurn } from '../kernel/turns/turnQueries';

let s: TestStore;
let goalId: string;
beforeEach(() => {
  s = makeStore();
  goalId = createGoal(s.kernel, { title: 'Nightly', maxConcurrent: 3 }).id;
  for (const title of ['a', 'b', 'c']) addTodo(s.kernel, { goalId, title });
});
afterEach(() => s.dispose());

/** A pid that surely belongs to no process: a child that has exited and been reaped. */
/**
 * A process that has ended but was never reaped: `sh` starts a short `sleep` in the background, then becomes a long
 * `sleep`, which never waits for it. Once the short one ends it is a zombie: kill(pid, 0) still succeeds on it.
 */
async function zombie(): Promise<{ pid: number; dispose(): void }> {
  const parent = spawn('/bin/sh', ['-c', 'sleep 1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const pid = await new Promise<number>((done) => parent.stdout.once('data', (d) => done(Number(String(d).trim()))));
  // Until `true` has exited, it is not a zombie yet.
  while (!readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ')) await new Promise((r) => setTimeout(r, 10));
  return { pid, dispose: () => parent.kill('SIGKILL') };
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((done) => child.on('close', done));
  return child.pid as number;
}

describe('the recovery rule for open turns', () => {
  test('no marker: unmanaged (turn start by hand); a live launcher: alive; a gone one: abandoned, with its exit code when written', async () => {
    const byHand = startTurn(s.kernel, { goalId, host: 'custom', agent: 'bot' }).turn;
    const live = startTurn(s.kernel, { goalId, host: 'custom', agent: 'bot' }).turn;
    const gone = startTurn(s.kernel, { goalId, host: 'custom', agent: 'bot' }).turn;
    const dead = await deadPid();
    writeLauncher(s.root, live.id, { pid: process.ppid, runner: 'bot', host: 'custom' }); // our parent: alive, not us
    writeLauncher(s.root, gone.id, { pid: dead, runner: 'bot', host: 'custom' });
    expect(launcherState(s.root, byHand.id).state).toBe('unmanaged');
    expect(launcherState(s.root, live.id)).toMatchObject({ state: 'alive', launcher: { pid: process.ppid, runner: 'bot' } });
    expect(launcherState(s.root, gone.id)).toMatchObject({ state: 'gone', exitCode: undefined });
    writeFileSync(join(s.root, turnDir(gone.id), EXIT_CODE_FILE), ''); // created, not yet written: not an exit code
    expect(launcherState(s.root, gone.id)).toMatchObject({ state: 'gone', exitCode: undefined });
    writeFileSync(join(s.root, turnDir(gone.id), EXIT_CODE_FILE), '7');
    expect(abandonedTurns(s.kernel).map((a) => [a.turn.id, a.exitCode])).toEqual([[gone.id, 7]]);
    expect(abandonedTurns(s.kernel, (id) => id === gone.id)).toEqual([]);
  });

  test('a gone launcher whose agent process still runs is orphaned, not gone: the agent may still write back', async () => {
    const turn = startTurn(s.kernel, { goalId, host: 'custom', agent: 'bot' }).turn;
    writeLauncher(s.root, turn.id, { pid: await deadPid(), runner: 'bot', host: 'custom', hostPid: process.pid });
    expect(launcherState(s.root, turn.id, -1).state).toBe('orphaned');
    expect(abandonedTurns(s.kernel)).toEqual([]);
  });

  test('one runner adopts an orphan: the first to claim it wins, and becomes its launcher', async () => {
    const turn = startTurn(s.kernel, { goalId, host: 'custom', agent: 'bot' }).turn;
    const gone = await deadPid();
    writeLauncher(s.root, turn.id, { pid: gone, runner: 'bot', host: 'custom', hostPid: process.pid });
    const state = launcherState(s.root, turn.id, -1);
    if (state.state !== 'orphaned') throw new Error(state.state);
    expect(adoptOrphan(s.root, turn.id, state.launcher, { pid: process.ppid, runner: 'bot-2', host: 'custom' })).toBe(true);
    expect(adoptOrphan(s.root, turn.id, state.launcher, { pid: process.ppid, runner: 'bot-3', host: 'custom' })).toBe(false);
    expect(launcherState(s.root, turn.id, -1)).toMatchObject({
      state: 'alive',
      launcher: { pid: process.ppid, runner: 'bot-2', hostPid: process.pid, adoptedFrom: gone },
    });
  });

  test.skipIf(!existsSync('/proc/self/stat'))('a pid reused by another process is not the launcher recorded', async () => {
    const turn = startTurn(s.kernel, { goalId, host: 'custom', agent: 'bot' }).turn;
    writeLauncher(s.root, turn.id, { pid: await deadPid(), runner: 'bot', host: 'custom', hostPid: process.pid, hostStart: 1 });
    expect(launcherState(s.root, turn.id, -1).state).toBe('gone');
    expect(processAlive(process.pid, 1)).toBe(false);
  });

  test('settling finishes the turn as the kernel, judged by what was written back, exactly once', async () => {
    const turn = startTurn(s.kernel, { goalId, host: 'custom', agent: 'bot' }).turn;
    addEvidence(s.as(agent('bot')), { todoId: turn.todoId as string, summary: 'half done' });
    writeLauncher(s.root, turn.id, { pid: await deadPid(), runner: 'bot', host: 'custom' });
    const [found] = abandonedTurns(s.kernel);
    const settled = settleAbandoned(s.as(agent('someone-else')), found as NonNullable<typeof found>);
    expect(settled).toMatchObject({ exitCode: -1, turn: { id: turn.id, resultKind: 'validated_progress', spent: true } });
    expect(settled?.why).toMatch(/runner bot \(pid \d+\) is gone/);
    const finishedBy = s.kernel.db.prepare(`SELECT actor FROM events WHERE kind = 'turn.finished'`).get();
    expect(finishedBy?.actor).toBe('kernel');
    expect(settleAbandoned(s.kernel, found as NonNullable<typeof found>)).toBeUndefined();
    expect(getTurn(s.kernel.db, turn.id).exitCode).toBe(-1);
  });

  test.skipIf(!existsSync('/proc/self/stat'))(
    'a process that ended but was not reaped yet (a zombie) is not alive: its turn is recovered, not left',
    async () => {
      const z = await zombie();
      try {
        expect(processAlive(z.pid)).toBe(false);
        const turn = startTurn(s.kernel, { goalId, host: 'custom', agent: 'bot' }).turn;
        writeLauncher(s.root, turn.id, { pid: await deadPid(), runner: 'bot', host: 'custom', hostPid: z.pid });
        expect(launcherState(s.root, turn.id, -1).state).toBe('gone');
        writeLauncher(s.root, turn.id, { pid: z.pid, runner: 'bot', host: 'custom' }); // the runner itself, killed, not reaped
        expect(launcherState(s.root, turn.id, -1).state).toBe('gone');
      } finally {
        z.dispose();
      }
      expect(processAlive(process.pid)).toBe(true);
    },
  );
});

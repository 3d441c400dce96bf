import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { LAUNCHER_FILE } from '../../src/runtime/launchers';
import { Kernel } from '../../src/kernel/kernel';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { startTurn } from '../../src/kernel/turns/turns';
import { getTurn } from '../../src/kernel/turns/turnQueries';
import { app, cli, otherWriter, until, vscodeHuman, withAnswers, workspaceRoot } from './support';

let goalId = '';
const deadPid = () => spawnSync('true').pid as number;
const turnDir = (id: string) => join(workspaceRoot(), '.loopx', 'turns', id);

/** A turn as another window would have started it: claimed, prompt written, launcher marker left behind. */
function startedElsewhere(title: string, launcherPid: number | null, limitSeconds?: number): { turnId: string; todoId: string } {
  // A window acts as its person, who may start a turn for an agent.
  const writer = Kernel.open(workspaceRoot(), { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
  const todo = addTodo(writer, { goalId, title });
  const { turn } = startTurn(writer, { goalId, host: 'custom', agent: 'codex', todoId: todo.id, limitSeconds });
  writer.close();
  if (launcherPid !== null)
    writeFileSync(join(turnDir(turn.id), LAUNCHER_FILE), JSON.stringify({ pid: launcherPid, at: new Date().toISOString() }));
  return { turnId: turn.id, todoId: todo.id };
}

const turnNow = async (id: string) => (await app()).session.requireKernel().read((db) => getTurn(db, id));

suite('turns left behind by a window that is gone', () => {
  suiteSetup(async () => {
    const writer = otherWriter('planner');
    goalId = createGoal(writer.as(vscodeHuman), { title: 'Recovery', turnsPerWindow: 50, maxConcurrent: 20 }).id;
    writer.close();
    await until(async () => (await app()).model.goals().some((g) => g.id === goalId), 'the goal');
  });

  test('an orphaned turn is finished by what its agent wrote back: nothing → not spent, the claim released', async () => {
    const loopx = await app();
    const idle = startedElsewhere('Abandoned mid-turn', deadPid());
    const shipped = startedElsewhere('Shipped just before the crash', deadPid());
    assert.equal(cli(['todo', 'ship', shipped.todoId, '--evidence', 'done before the window died'], 'codex').code, 0);
    const { result: results, prompts } = await withAnswers({}, async () => loopx.turnRecovery.recover());
    assert.deepEqual(
      results.filter((r) => [idle.turnId, shipped.turnId].includes(r.turnId)).map((r) => r.action),
      ['finished', 'finished'],
    );
    const a = await turnNow(idle.turnId);
    assert.deepEqual([a.resultKind, a.spent, a.exitCode], ['host_failure', false, -1]);
    assert.equal(
      loopx.session.requireKernel().read((db) => db.prepare('SELECT status FROM todos WHERE id = ?').get(idle.todoId)?.status),
      'open',
    );
    const b = await turnNow(shipped.turnId);
    assert.deepEqual([b.resultKind, b.spent], ['validated_completion', true]);
    assert.match(prompts.join('\n'), new RegExp(`info: LoopX: ${idle.turnId}, ${shipped.turnId} were left open by a window that is gone`));
    assert.deepEqual(
      loopx.turnRecovery.recover().filter((r) => r.turnId === idle.turnId),
      [],
      'a finished turn is not looked at again',
    );
  });

  test('a turn whose command ended while nobody watched is finished with its exit code', async () => {
    const loopx = await app();
    const t = startedElsewhere('Ended during a reload', deadPid());
    writeFileSync(join(turnDir(t.turnId), 'exit-code'), '7');
    await withAnswers({}, async () => loopx.turnRecovery.recover());
    const turn = await turnNow(t.turnId);
    assert.deepEqual([turn.exitCode, turn.resultKind], [7, 'host_failure']);
  });

  test('left alone: a turn another live window runs, and a turn an external runner started through the CLI', async () => {
    const loopx = await app();
    const other = spawn('sleep', ['30']);
    try {
      const live = startedElsewhere('Another window runs this', other.pid as number);
      writeFileSync(join(turnDir(live.turnId), 'exit-code'), '0'); // just ended: that window finishes it, not this one
      const external = startedElsewhere('A script runs this', null);
      const results = loopx.turnRecovery.recover();
      assert.deepEqual(results.find((r) => r.turnId === live.turnId)?.action, 'left');
      assert.equal(
        results.find((r) => r.turnId === external.turnId),
        undefined,
      );
      assert.equal((await turnNow(live.turnId)).endedAt, null);
      assert.equal((await turnNow(external.turnId)).endedAt, null);
    } finally {
      other.kill();
    }
  });

  test('a turn of a killed loopx run: left while its agent runs, finished by the window once both are gone', async () => {
    const loopx = await app();
    const agentProcess = spawn('sleep', ['30']);
    try {
      const t = startedElsewhere('A runner was killed during this', null);
      const marker = (hostPid: number) => ({
        pid: deadPid(),
        runner: 'night-runner',
        host: 'custom',
        hostPid,
        at: new Date().toISOString(),
      });
      writeFileSync(join(turnDir(t.turnId), LAUNCHER_FILE), JSON.stringify(marker(agentProcess.pid as number)));
      assert.deepEqual(loopx.turnRecovery.recover().find((r) => r.turnId === t.turnId)?.action, 'left');
      writeFileSync(join(turnDir(t.turnId), LAUNCHER_FILE), JSON.stringify(marker(deadPid())));
      const { result } = await withAnswers({}, async () => loopx.turnRecovery.recover());
      assert.match(result.find((r) => r.turnId === t.turnId)?.why ?? '', /runner night-runner is gone/);
      assert.deepEqual([(await turnNow(t.turnId)).exitCode, (await turnNow(t.turnId)).resultKind], [-1, 'host_failure']);
    } finally {
      agentProcess.kill();
    }
  });

  test("a killed loopx run's agent past its turn's deadline is ended by the window and finished as timed out", async () => {
    const loopx = await app();
    const t = startedElsewhere('A runner was killed and its agent hangs', null, 1);
    const agentProcess = spawn('sleep', ['60'], { detached: true }); // a group leader, as loopx run starts its hosts
    try {
      const marker = { pid: deadPid(), runner: 'night-runner', host: 'custom', hostPid: agentProcess.pid, at: new Date().toISOString() };
      writeFileSync(join(turnDir(t.turnId), LAUNCHER_FILE), JSON.stringify(marker));
      const deadline = Date.parse((await turnNow(t.turnId)).deadlineAt as string);
      assert.deepEqual(loopx.turnRecovery.recover().find((r) => r.turnId === t.turnId)?.action, 'left', 'before its deadline');
      await until(() => Date.now() > deadline, 'the deadline', 30_000);
      const { result } = await withAnswers({}, async () => loopx.turnRecovery.recover());
      assert.match(result.find((r) => r.turnId === t.turnId)?.why ?? '', /ran past the turn's deadline/);
      await until(async () => (await turnNow(t.turnId)).endedAt !== null, 'the turn finished', 15_000);
      assert.equal((await turnNow(t.turnId)).exitCode, 124);
      await until(() => agentProcess.signalCode === 'SIGTERM', 'its agent ended by TERM');
    } finally {
      agentProcess.kill('SIGKILL');
    }
  });

  test('a turn whose terminal VS Code restored is watched again and finished when its command ends', async () => {
    const loopx = await app();
    const t = startedElsewhere('Survived a reload', deadPid());
    const exitFile = join(turnDir(t.turnId), 'exit-code');
    const terminal = vscode.window.createTerminal({
      name: `LoopX ${t.turnId} ${t.todoId} · custom`,
      shellPath: '/bin/sh',
      shellArgs: ['-c', `sleep 1; printf 0 > '${exitFile}'; sleep 5`],
    });
    try {
      const results = loopx.turnRecovery.recover();
      assert.deepEqual(results.find((r) => r.turnId === t.turnId)?.action, 'adopted');
      assert.equal((await turnNow(t.turnId)).endedAt, null, 'still running');
      const turn = await until(
        async () => {
          const now = await turnNow(t.turnId);
          return now.endedAt ? now : undefined;
        },
        'the adopted turn to finish',
        10_000,
      );
      assert.deepEqual([turn.exitCode, turn.resultKind, turn.spent], [0, 'validation_failed', false]);
    } finally {
      terminal.dispose();
    }
  });
});

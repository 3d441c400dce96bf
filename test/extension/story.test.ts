import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { askGate } from '../../src/kernel/gates/gates';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo, blockTodo } from '../../src/kernel/todos/todos';
import { claimTodo } from '../../src/kernel/todos/claims';
import { spendQuota } from '../../src/kernel/goals/quota';
import { startTurn } from '../../src/kernel/turns/turns';
import { finishTurn } from '../../src/kernel/turns/turnFinish';
import { addHook, hookRuns, removeHook } from '../../src/kernel/hooks/hooks';
import { WindowHooks } from '../../src/extension/hooks/windowHooks';
import { COMMANDS } from '../../src/extension/commands/commandIds';
import { app, otherWriter, until, vscodeHuman } from './support';

suite('the goal story, the board at a past moment, and hooks in the window', () => {
  test('Open Goal Story shows the goal story beside the board, a todo in it opens on the board; a message that does not parse is refused', async () => {
    const loopx = await app();
    const writer = otherWriter('ada');
    const goalId = createGoal(writer.as(vscodeHuman), { title: 'Story goal' }).id;
    const todoId = addTodo(writer.as(vscodeHuman), { goalId, title: 'Tell the story' }).id;
    writer.close();
    await vscode.commands.executeCommand(COMMANDS.openStory, goalId);
    const panel = await until(() => loopx.stories.panel, 'the story panel');
    await until(() => panel.last?.goal.id === goalId && panel.last, 'the story of the goal sent to the webview', 15_000);
    assert.equal(panel.last?.totals.todos, 1);
    // A todo clicked in the story opens the board on that card (Open on Board's reveal, once the board is ready).
    await panel.receive({ type: 'openTodo', todoId });
    const board = await until(() => loopx.board, 'the board');
    await until(() => board.revealed.some((r) => r.todoId === todoId), 'the board to be asked for the todo', 15_000);
    await panel.receive({ type: 'pickGoal', goalId: '../../etc' });
    await panel.receive({ type: 'export', format: 'exe' });
    assert.equal(panel.refused.length, 2);
    panel.dispose();
  });

  test('the board at a past moment: a history request answers the board as it was; a bad one is refused', async () => {
    const loopx = await app();
    await vscode.commands.executeCommand(COMMANDS.openBoard);
    const board = await until(() => loopx.board, 'the board');
    const writer = otherWriter('ada');
    const goalId = createGoal(writer.as(vscodeHuman), { title: 'History goal' }).id;
    const before = Number(writer.db.prepare('SELECT max(seq) AS n FROM events').get()?.n);
    const todoId = addTodo(writer.as(vscodeHuman), { goalId, title: 'Added after the moment' }).id;
    writer.close();
    const answer = await board.receive({ type: 'history', requestId: 7, seq: before });
    assert.ok(answer && answer.type === 'history', JSON.stringify(answer).slice(0, 200));
    assert.equal(answer.past.seq, before);
    assert.ok(!answer.past.snapshot.cards.some((c) => c.id === todoId), 'the todo added after the moment is not on the past board');
    assert.ok(answer.past.snapshot.goals.some((g) => g.id === goalId));
    const now = await board.receive({ type: 'history', requestId: 8, seq: Number.MAX_SAFE_INTEGER });
    assert.ok(now && now.type === 'history' && now.past.snapshot.cards.some((c) => c.id === todoId));
    const refused = board.refused.length;
    await board.receive({ type: 'history', requestId: 9, seq: -3 });
    await board.receive({ type: 'historyAt', requestId: 9, at: 'last tuesday' });
    assert.equal(board.refused.length, refused + 2);
    await board.receive({ type: 'historyEnd' });
  });

  test('hooks: an untrusted window and a window with loopx.hooks.run off run none; a trusted one runs each once', async () => {
    const loopx = await app();
    const config = vscode.workspace.getConfiguration('loopx.hooks');
    await config.update('run', false, vscode.ConfigurationTarget.Workspace);
    const writer = otherWriter('codex');
    const hook = addHook(writer.as(vscodeHuman), { command: 'true', on: ['gate.asked'] });
    const untrusted = new WindowHooks(loopx.session, loopx.model, loopx.log, () => false);
    try {
      assert.equal(untrusted.enabled, false);
      const goalId = createGoal(writer.as(vscodeHuman), { title: 'Hooks goal' }).id;
      askGate(writer, { goalId, question: 'Asked while hooks are off?' });
      await until(() => loopx.model.gates().some((g) => g.question === 'Asked while hooks are off?'), 'the gate in the model');
      untrusted.poke();
      await new Promise((r) => setTimeout(r, 1000));
      assert.deepEqual(untrusted.runs, []);
      assert.deepEqual(hookRuns(writer.db, { hookId: hook.id }), [], 'no window ran the hook');
      await config.update('run', undefined, vscode.ConfigurationTarget.Workspace);
      askGate(writer, { goalId, question: 'Asked with hooks on?' });
      const runs = await until(() => hookRuns(writer.db, { hookId: hook.id }).filter((r) => r.endedAt !== null), 'the hook run', 15_000);
      // The first gate was asked while this window ran no hooks; now it does, it runs the hook for both, once each.
      assert.equal(new Set(runs.map((r) => r.seq)).size, runs.length);
      assert.ok(runs.every((r) => /^VS Code window \(pid \d+\)$/.test(r.claimedBy) && r.exitCode === 0));
      await loopx.primary.hooks.settle();
    } finally {
      untrusted.dispose();
      removeHook(writer.as(vscodeHuman), hook.id);
      writer.close();
      await config.update('run', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  test('the window tells of a blocked todo, a failed turn, a spent budget and a stopped runner as they happen, once each', async () => {
    const loopx = await app();
    const notifier = loopx.primary.eventNotifier;
    const writer = otherWriter('codex');
    try {
      const goalId = createGoal(writer.as(vscodeHuman), { title: 'Word goal', turnsPerWindow: 1 }).id;
      const blocked = addTodo(writer.as(vscodeHuman), { goalId, title: 'Blocked while the window is open' }).id;
      addTodo(writer.as(vscodeHuman), { goalId, title: 'A turn that fails' });
      claimTodo(writer, blocked);
      blockTodo(writer, blocked, 'needs the API key');
      const turn = startTurn(writer, { goalId, host: 'codex' }).turn;
      finishTurn(writer, turn.id, 3); // nothing written back, a non-zero exit: a failed turn
      spendQuota(writer, goalId, 'manual-1'); // 1 of 1: the budget is spent
      // What `loopx run` records as it stops (src/cli/run/runner.ts).
      writer.write((tx) =>
        tx.emit({ kind: 'runner.stopped', goalId: null, todoId: null, data: { pid: 4242, host: 'codex', reason: 'idle', turns: 1 } }),
      );
      const expected = [`todo.blocked ${blocked}`, `turn.failed ${turn.id}`, `budget.spent ${goalId}`, 'runner.stopped codex'];
      await until(() => expected.every((n) => notifier.notified.includes(n)) || undefined, 'the four notifications', 15_000);
      // Another change in the store is no reason to tell again.
      addTodo(writer.as(vscodeHuman), { goalId, title: 'Something else' });
      await until(() => loopx.model.todos(goalId, 'open').some((t) => t.title === 'Something else') || undefined, 'the new todo');
      assert.deepEqual(
        notifier.notified.filter((n) => expected.includes(n)),
        expected,
      );
    } finally {
      writer.close();
    }
  });
});

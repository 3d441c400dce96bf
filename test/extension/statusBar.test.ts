import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { createGoal, setGoalStatus } from '../../src/kernel/ops/goals';
import { spendQuota } from '../../src/kernel/ops/quota';
import { app, otherWriter, until, vscodeHuman, withAnswers } from './support';

suite('status bar', () => {
  test('a quota meter per active goal that turns to the warning colour when the budget is exhausted', async () => {
    const loopx = await app();
    const codex = otherWriter('codex');
    const goal = createGoal(codex.as(vscodeHuman), { title: 'Tiny budget', turnsPerWindow: 2 });
    await until(() => loopx.statusBar.snapshot().some((s) => s.id === goal.id), 'an item for the new goal');
    const meter = loopx.statusBar.snapshot().find((s) => s.id === goal.id);
    assert.deepEqual(meter && { id: meter.id, text: meter.text, warning: meter.warning }, {
      id: goal.id,
      text: `$(pulse) ${goal.id} 0/2`,
      warning: false,
    });
    spendQuota(codex, goal.id, 'run-1');
    spendQuota(codex, goal.id, 'run-2');
    const exhausted = await until(() => loopx.statusBar.snapshot().find((s) => s.id === goal.id && s.warning), 'the warning colour');
    // No ready work comes first in should-run order, so no wake time is shown until a todo exists.
    assert.equal(exhausted.text, `$(warning) ${goal.id} 2/2`);
    setGoalStatus(codex, goal.id, 'paused');
    await until(() => !loopx.statusBar.snapshot().some((s) => s.id === goal.id), 'the paused goal to leave the status bar');
    codex.close();
  });

  test('the pending-gate badge counts gates waiting for a human', async () => {
    const loopx = await app();
    await until(() => loopx.statusBar.gateBadge() === '$(bell-dot) 1 gate', 'the badge');
  });

  test('clicking the meter lists each goal with its quota and should-run answer', async () => {
    const { prompts } = await withAnswers({ picks: [() => undefined] }, async () => vscode.commands.executeCommand('loopx.showQuota'));
    assert.match(prompts[0] ?? '', /pick: LoopX: budgets and what runs next \[.*G1 Ship the parser.*\]/);
  });
});

import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { createGoal, setGoalStatus } from '../../src/kernel/goals/goals';
import { spendQuota } from '../../src/kernel/goals/quota';
import { app, otherWriter, until, vscodeHuman, withAnswers } from './support';
import type { BoardPanel } from '../../src/extension/board/boardPanel';
import { buildSnapshot } from '../../src/extension/board/boardData';
import { boardFacts } from '../../src/kernel/readModels/cards';

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

  test('a goal an agent proposed or paused shows in the status bar and in "Needs you", and starts with one decision', async () => {
    const loopx = await app();
    const codex = otherWriter('codex');
    const proposed = createGoal(codex, { title: 'Proposed by codex' });
    codex.close();
    // This proposal waits for a person, with every other goal an agent created or paused (the test before paused one).
    await until(() => loopx.model.status()?.goals.find((g) => g.id === proposed.id)?.waitsForPerson, 'the proposal in the model');
    const waiting = () => loopx.model.status()?.goals.filter((g) => g.waitsForPerson) ?? [];
    assert.ok(
      waiting().length >= 2,
      waiting()
        .map((g) => g.id)
        .join(', '),
    );
    await until(
      () => loopx.statusBar.pausedBadge() === `$(debug-pause) ${waiting().length} goals paused`,
      'the paused goals in the status bar',
    );
    const panel = await vscode.commands.executeCommand<BoardPanel>('loopx.openBoard');
    try {
      const attention = loopx.session.requireKernel().read((db, now) => buildSnapshot(boardFacts(db, now), 'ada').attention);
      assert.deepEqual(
        attention.filter((a) => a.kind === 'paused' && a.goalId === proposed.id),
        [{ kind: 'paused', goalId: proposed.id, title: 'Proposed by codex', by: 'codex', proposed: true }],
      );
      assert.deepEqual(loopx.model.status()?.goals.find((g) => g.id === proposed.id)?.waitsForPerson, { by: 'codex', proposed: true });
      // From the palette: the modal says what starting allows; dismissed, nothing changes.
      const palette = await withAnswers({ warnings: [undefined] }, async () =>
        vscode.commands.executeCommand('loopx.resumeGoal', proposed.id),
      );
      assert.deepEqual([palette.result, palette.prompts.length], [undefined, 1], palette.prompts.join('\n'));
      // The same from the strip.
      const dismissed = await withAnswers({ warnings: [undefined] }, async () =>
        panel.receive({ type: 'goalAction', requestId: 1, action: 'resumeGoal', goalId: proposed.id }),
      );
      assert.deepEqual(
        { result: dismissed.result, refused: panel.refused },
        {
          result: { type: 'result', requestId: 1, ok: false, error: { code: 'cancelled', message: 'cancelled', hint: null } },
          refused: [],
        },
      );
      assert.match(
        dismissed.prompts[0] ?? '',
        /^warning \(modal\): Start goal G\d+ Proposed by codex\? \| Proposed by codex, not started yet\. Once started, agents may spend up to 20 turns every 24 h on it, one at a time\./,
      );
      assert.equal(loopx.model.goals().find((g) => g.id === proposed.id)?.status, 'paused');
      await withAnswers({ warnings: ['Start'] }, async () =>
        panel.receive({ type: 'goalAction', requestId: 2, action: 'resumeGoal', goalId: proposed.id }),
      );
      await until(() => loopx.model.goals().find((g) => g.id === proposed.id)?.status === 'active', 'the goal to start');
      await until(() => !waiting().some((g) => g.id === proposed.id), 'the started goal to leave the paused ones');
      const left = waiting();
      const badge = left.length === 1 ? `$(debug-pause) ${left[0]?.id} paused` : `$(debug-pause) ${left.length} goals paused`;
      await until(() => loopx.statusBar.pausedBadge() === badge, 'the badge to count one goal fewer');
    } finally {
      panel.dispose();
    }
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

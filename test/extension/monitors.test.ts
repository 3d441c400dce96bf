import * as assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { BoardPanel } from '../../src/extension/board/boardPanel';
import { buildSnapshot } from '../../src/extension/board/boardData';
import { boardFacts } from '../../src/kernel/readModels/cards';
import { MonitorTicker } from '../../src/extension/monitors/monitorTicker';
import { columnOf } from '../../src/protocol/board';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { claimTodo } from '../../src/kernel/todos/claims';
import { addMonitor, approveMonitor, cancelMonitor } from '../../src/kernel/monitors/monitors';
import { runEvidence } from '../../src/kernel/evidence/evidenceRun';
import { app, otherWriter, until, vscodeHuman, withAnswers, workspaceRoot } from './support';

/** A goal of its own, so the other suites' todos do not change should-run's answer here. */
function goalWithWaitingTodo(title: string, check: string): { goalId: string; todoId: string; monitorId: string } {
  const writer = otherWriter('codex');
  try {
    const goalId = createGoal(writer.as(vscodeHuman), { title }).id;
    const todoId = addTodo(writer, { goalId, title: `${title}: merge when green` }).id;
    claimTodo(writer, todoId);
    const monitorId = addMonitor(writer, { todoId, check, everySeconds: 10, note: 'CI run started' }).id;
    approveMonitor(writer.as(vscodeHuman), monitorId); // a person allowed the check codex set
    return { goalId, todoId, monitorId };
  } finally {
    writer.close();
  }
}

const cardOf = async (todoId: string) => {
  const loopx = await app();
  return loopx.session
    .requireKernel()
    .read((db, now) => buildSnapshot(boardFacts(db, now), loopx.session.actor.name))
    .cards.find((c) => c.id === todoId);
};

suite('monitors', () => {
  teardown(async () => {
    // Nothing stays waiting after this suite: later windows and suites must not find checks to run.
    const loopx = await app();
    const writer = otherWriter('ada');
    try {
      for (const m of loopx.session.requireKernel().read((db) => db.prepare(`SELECT id FROM monitors WHERE status = 'waiting'`).all())) {
        cancelMonitor(writer.as({ name: 'ada', kind: 'human' }), String(m.id), 'test suite clean-up');
      }
    } finally {
      writer.close();
    }
    rmSync(join(workspaceRoot(), 'ci-green'), { force: true });
  });

  test('a monitor on the board: the card waits with its check, the window runs it, it fires, the card moves to Ready, a notification says so', async function () {
    this.timeout(45_000);
    const loopx = await app();
    const { goalId, todoId, monitorId } = goalWithWaitingTodo('CI watch', 'test -f ci-green && echo "all jobs green"');
    await vscode.commands.executeCommand<BoardPanel>('loopx.openBoard');
    const waiting = await until(async () => {
      const card = await cardOf(todoId);
      return card?.monitor ? card : undefined;
    }, 'the card with its monitor');
    assert.equal(columnOf(waiting), 'waiting');
    assert.deepEqual(
      { id: waiting.monitor?.id, check: waiting.monitor?.check, until: waiting.monitor?.until },
      { id: monitorId, check: 'test -f ci-green && echo "all jobs green"', until: 'exit0' },
    );
    // The window runs the first check at once (it is due when added): it fails and the card shows the result.
    await until(
      () => loopx.monitorTicker.ticks.some((t) => t.runs.some((r) => r.monitorId === monitorId)),
      'the first check run by this window',
      10_000,
    );
    const afterFirst = await until(async () => (await cardOf(todoId))?.monitor?.lastRun ?? undefined, 'the last run on the card');
    assert.equal(afterFirst.exitCode, 1);
    // The goal has nothing else to do: its status-bar wake time is the next check.
    await until(
      () => /\$\(eye\) next turn \d/.test(loopx.statusBar.snapshot().find((g) => g.id === goalId)?.text ?? ''),
      'the next check in the status bar',
    );
    writeFileSync(join(workspaceRoot(), 'ci-green'), '');
    await until(
      () => loopx.model.monitors().find((m) => m.id === monitorId)?.status === 'fired',
      'the monitor to fire at its next check',
      20_000,
    );
    const ready = await until(async () => {
      const card = await cardOf(todoId);
      return card && columnOf(card) === 'ready' ? card : undefined;
    }, 'the card in Ready');
    assert.equal(ready.monitor, null);
    assert.match(loopx.model.todo(todoId)?.continuation ?? '', /Monitor M\d+ fired[\s\S]*all jobs green/);
    await until(() => loopx.monitorNotifier.notified.includes(`${monitorId} fired`), 'the notification');
    loopx.board?.dispose();
  });

  test('a check an agent set waits for you: the view marks it, a notification says so, and Allow shows the command before it runs', async function () {
    this.timeout(30_000);
    const loopx = await app();
    const writer = otherWriter('codex');
    let monitorId: string;
    try {
      const goalId = createGoal(writer.as(vscodeHuman), { title: 'Deploy watch' }).id;
      const todoId = addTodo(writer, { goalId, title: 'Deploy watch: wait for staging' }).id;
      claimTodo(writer, todoId);
      monitorId = addMonitor(writer, { todoId, check: 'test -f staging-up && echo up', everySeconds: 10 }).id;
    } finally {
      writer.close();
    }
    const node = await until(
      () => loopx.monitorsTree.getChildren().find((n) => n.kind === 'monitor' && n.monitor.id === monitorId),
      'the monitor in the view',
    );
    const item = loopx.monitorsTree.getTreeItem(node);
    assert.equal(item.contextValue, 'loopx:monitor:waiting:approval');
    assert.match(String(item.description), /waits for you to allow its check/);
    await until(() => loopx.monitorNotifier.notified.includes(`${monitorId} waits for approval`), 'the notification');
    // The window does not run it meanwhile.
    await vscode.commands.executeCommand('loopx.checkMonitorsNow');
    assert.equal(loopx.model.monitors().find((m) => m.id === monitorId)?.runCount, 0);
    const declined = await withAnswers({ warnings: [undefined] }, async () =>
      vscode.commands.executeCommand('loopx.approveMonitor', monitorId),
    );
    assert.match(
      declined.prompts.join('\n'),
      /warning \(modal\): Let codex's check for T\d+ run\? \| test -f staging-up && echo up\n\nLoopX will run this command from the workspace root every 10s \(as the monitor says\)/,
    );
    // Where this window would run it is said: in loopx's sandbox, or without one and why.
    assert.match(declined.prompts.join('\n'), /It runs (in a sandbox \(bubblewrap\)|without a sandbox, with your access to every file)/);
    assert.equal(loopx.model.monitors().find((m) => m.id === monitorId)?.approval, 'pending');
    await withAnswers({ warnings: ['Allow'] }, async () => vscode.commands.executeCommand('loopx.approveMonitor', monitorId));
    const approved = await until(() => loopx.model.monitors().find((m) => m.id === monitorId && m.approval === 'approved'), 'the approval');
    assert.equal(approved.approvalChannel, 'vscode');
  });

  test('the Monitors view shows what runs unattended, and cancels it', async () => {
    const loopx = await app();
    const writer = otherWriter('codex');
    let monitorId: string;
    try {
      const todoId = addTodo(writer, { goalId: 'G1', title: 'Look at the nightly build' }).id;
      claimTodo(writer, todoId);
      monitorId = addMonitor(writer, { todoId, afterSeconds: 3600, note: 'it runs at 02:00' }).id;
    } finally {
      writer.close();
    }
    const node = await until(
      () => loopx.monitorsTree.getChildren().find((n) => n.kind === 'monitor' && n.monitor.id === monitorId),
      'the monitor in the view',
    );
    const item = loopx.monitorsTree.getTreeItem(node);
    assert.equal(item.contextValue, 'loopx:monitor:waiting');
    assert.match(String(item.description), new RegExp(`^${monitorId} · T\\d+ · fires in (59|60)m$`));
    assert.match(String(loopx.monitorsView.description), /\d+ waiting/);
    const { prompts } = await withAnswers({ inputs: ['the build was fixed by hand'] }, async () =>
      vscode.commands.executeCommand('loopx.cancelMonitor', node),
    );
    assert.match(prompts[0] ?? '', new RegExp(`cancel ${monitorId}`));
    await until(() => loopx.model.monitors().find((m) => m.id === monitorId)?.status === 'cancelled', 'the cancel');
    assert.ok(!loopx.monitorNotifier.notified.includes(`${monitorId} cancelled`), 'a cancel a person made is not news');
  });

  test('no checks run in an untrusted workspace, and the Monitors view says why', async () => {
    const loopx = await app();
    const config = vscode.workspace.getConfiguration('loopx.monitors');
    await config.update('runChecks', false, vscode.ConfigurationTarget.Workspace);
    try {
      await until(
        () => /its setting “Run Checks” \(LoopX › Monitors\) is off/.test(loopx.monitorsView.message ?? ''),
        'the view message when checks are off',
      );
      const { monitorId } = goalWithWaitingTodo('Untrusted', 'touch untrusted-ran');
      const untrusted = new MonitorTicker(loopx.session, loopx.model, loopx.log, () => false);
      try {
        assert.deepEqual(untrusted.state.ticking, false);
        assert.match(untrusted.state.ticking ? '' : untrusted.state.message, /not trusted/);
        assert.equal(await untrusted.tickNow(), undefined);
        await new Promise((r) => setTimeout(r, 1500));
        assert.equal(existsSync(join(workspaceRoot(), 'untrusted-ran')), false);
        assert.equal(loopx.model.monitors().find((m) => m.id === monitorId)?.runCount, 0);
      } finally {
        untrusted.dispose();
      }
    } finally {
      // The teardown cancels the monitor before checks are switched back on.
      const writer = otherWriter('ada');
      for (const m of loopx.model.monitors().filter((x) => x.status === 'waiting'))
        cancelMonitor(writer.as({ name: 'ada', kind: 'human' }), m.id);
      writer.close();
      await config.update('runChecks', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await until(() => loopx.monitorsView.message === undefined, 'the view message gone once checks are on again');
  });

  test('evidence the kernel ran has a shield in the Evidence view', async () => {
    const loopx = await app();
    const writer = otherWriter('codex');
    try {
      const todoId = addTodo(writer, { goalId: 'G1', title: 'Verified' }).id;
      claimTodo(writer, todoId);
      await runEvidence(writer, { todoId, argv: ['node', '-e', 'console.log("12 passing")'] });
      loopx.primary.evidenceTree.setFilter({ todoId });
      const node = await until(() => loopx.evidenceTree.getChildren()[0], 'the evidence');
      const item = loopx.evidenceTree.getTreeItem(node);
      assert.equal((item.iconPath as vscode.ThemeIcon).id, 'shield');
      assert.match(String(item.description), /kernel-verified, asked by codex/);
    } finally {
      writer.close();
      loopx.primary.evidenceTree.setFilter({});
    }
  });
});

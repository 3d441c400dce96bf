import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { RunOutcome } from '../../src/extension/turns/turnRunner';
import { type Turn, listTurns } from '../../src/kernel/turns/turnQueries';
import { createGoal, setGoalStatus } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { setGoalHost } from '../../src/kernel/goals/goalHost';
import { claimTodo, releaseTodo } from '../../src/kernel/todos/claims';
import { app, otherWriter, REPO, terminalsOpenedDuring, until, vscodeHuman, withAnswers } from './support';

const AGENT = join(REPO, 'test', 'extension', 'fixtures', 'scriptedAgent.mjs');
const hosts = () => vscode.workspace.getConfiguration('loopx.hosts');
const useAgent = (mode: string) => hosts().update('custom.command', `node ${AGENT} {prompt} ${mode}`, vscode.ConfigurationTarget.Global);
let goalId = '';
const spentCount = async () =>
  Number((await app()).session.requireKernel().db.prepare('SELECT count(*) AS n FROM quota_spends WHERE goal_id = ?').get(goalId)?.n);

suite('turns in terminals', () => {
  suiteSetup(async () => {
    const writer = otherWriter('planner');
    goalId = createGoal(writer.as(vscodeHuman), { title: 'Turns', turnsPerWindow: 10 }).id;
    addTodo(writer, { goalId, title: 'Checked by a scripted agent' });
    writer.close();
    await until(async () => (await app()).model.goals().some((g) => g.id === goalId), 'the goal');
  });
  suiteTeardown(async () => {
    await hosts().update('custom.command', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('loopx.autoRun').update('enabled', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('loopx.autoRun').update('host', undefined, vscode.ConfigurationTarget.Global);
  });

  test('Get Started ticks what is true, not what was clicked: a Run Turn that failed leaves "Run a turn" open', async () => {
    const loopx = await app();
    await hosts().update('custom.command', 'surely-not-an-installed-runner {prompt}', vscode.ConfigurationTarget.Global);
    await withAnswers({}, async () => vscode.commands.executeCommand('loopx.runTurn', { goalId, host: 'custom' }));
    assert.equal(loopx.session.requireKernel().db.prepare('SELECT count(*) AS n FROM turns').get()?.n, 0, 'no turn ran yet');
    assert.deepEqual(
      { ...loopx.walkthrough.facts },
      // A goal exists and codex wrote to the store (the commands suite); gates were decided there too.
      { hasStore: true, hasGoal: true, agentConnected: true, turnRan: false, gateDecided: true },
    );
  });

  test('Run Turn opens a terminal for the todo and host; the agent ships; the turn is validated and spent', async () => {
    await useAgent('ship');
    const loopx = await app();
    const answeredBefore = loopx.turns.calls.answered;
    const outcome = await vscode.commands.executeCommand<RunOutcome>('loopx.runTurn', { goalId, host: 'custom' });
    assert.ok(outcome.started, 'a turn started');
    assert.match(outcome.terminal.name, new RegExp(`^LoopX ${outcome.turn.id} T\\d+ · custom$`));
    const turn: Turn = await outcome.finished;
    assert.deepEqual([turn.resultKind, turn.spent, turn.exitCode], ['validated_completion', true, 0]);
    assert.equal(await spentCount(), 1);
    await until(() => loopx.model.todo(turn.todoId as string)?.status === 'shipped', 'the Goals view to show it shipped');
    assert.match(loopx.model.evidence({ todoId: turn.todoId as string })[0]?.summary ?? '', /checked by the scripted agent/);
    await until(() => loopx.walkthrough.facts.turnRan, 'Get Started to tick "Run a turn"');
    // Its agent's two calls (evidence add, todo ship) were answered by the window's helper, not in processes of their own.
    await until(() => loopx.turns.calls.answered > answeredBefore, "the window's count of its turn's answered calls");
    assert.equal(loopx.turns.calls.answered - answeredBefore, 2);
  });

  test('from a todo to the turns that worked on it and what its agent printed (Show Turns…)', async () => {
    const loopx = await app();
    const [turn] = loopx.session.requireKernel().read((db) => listTurns(db, { goalId, limit: 1 }).turns);
    assert.ok(turn?.todoId, 'the turn of the test before');
    const { prompts } = await withAnswers({ picks: [(items) => items[0]] }, async () =>
      vscode.commands.executeCommand('loopx.showTurns', turn.todoId),
    );
    assert.match(prompts[0] ?? '', new RegExp(`^pick: LoopX: turns on ${turn.todoId} .*\\[\\$\\(terminal\\) ${turn.id} · `));
    const editor = await until(
      () =>
        vscode.window.activeTextEditor?.document.uri.fsPath.endsWith(join('turns', turn.id, 'output.log')) &&
        vscode.window.activeTextEditor,
      'the turn output to open',
    );
    assert.match(editor.document.getText(), /scripted agent: shipped/);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('with no ready work, Run Turn launches no terminal and says why', async () => {
    const {
      result: { result, prompts },
      opened,
    } = await terminalsOpenedDuring(() =>
      withAnswers({}, async () => vscode.commands.executeCommand<RunOutcome>('loopx.runTurn', { goalId, host: 'custom' })),
    );
    assert.equal(result.started, false);
    assert.deepEqual(opened, [], 'no terminal opened');
    assert.match(prompts.join('\n'), /warning: LoopX: no turn started\. G\d+ waits: every todo has shipped.*\[Add a Todo \| Open Board\]$/);
  });

  test('a goal whose one slot another agent holds: Run Turn says so before asking which agent, with the board a click away', async () => {
    const loopx = await app();
    const writer = otherWriter('planner');
    const busy = createGoal(writer.as(vscodeHuman), { title: 'One slot, held', maxConcurrent: 1 }).id;
    const held = addTodo(writer, { goalId: busy, title: 'Held by codex' });
    addTodo(writer, { goalId: busy, title: 'Ready, but no slot' });
    claimTodo(writer.as({ name: 'codex', kind: 'agent' }), held.id);
    await until(
      () =>
        loopx.model
          .status()
          ?.goals.find((g) => g.id === busy)
          ?.quota.holders?.includes('codex'),
      'the claim in the model',
    );
    // No host is given: a pick of agents here would be an unexpected quick pick (withAnswers throws).
    const {
      result: { result, prompts },
      opened,
    } = await terminalsOpenedDuring(() =>
      withAnswers({}, async () => vscode.commands.executeCommand<RunOutcome>('loopx.runTurn', { goalId: busy })),
    );
    assert.deepEqual([result.started, opened], [false, []]);
    assert.equal(prompts.length, 1, prompts.join('\n'));
    assert.match(
      prompts[0] ?? '',
      new RegExp(
        `^warning: LoopX: no turn started\\. ${busy} waits: codex holds a todo of this goal; it allows 1 at a time; it can run again at [^.]+\\. \\[Open Board\\]$`,
      ),
    );
    releaseTodo(writer.as({ name: 'codex', kind: 'agent' }), held.id);
    setGoalStatus(writer.as(vscodeHuman), busy, 'done');
    writer.close();
  });

  test('an agent that exits without writing back is not spent, and its todo goes back with a continuation', async () => {
    await useAgent('nothing');
    const loopx = await app();
    const writer = otherWriter('planner');
    const todo = addTodo(writer, { goalId, title: 'Forgotten by a lazy agent' });
    writer.close();
    await until(() => loopx.model.todo(todo.id), 'the todo');
    const outcome = await vscode.commands.executeCommand<RunOutcome>('loopx.runTurn', { goalId, host: 'custom' });
    assert.ok(outcome.started);
    const turn = await outcome.finished;
    assert.deepEqual([turn.resultKind, turn.spent], ['validation_failed', false]);
    assert.equal(await spentCount(), 1);
    await until(() => loopx.model.todo(todo.id)?.status === 'open', 'the todo back in Ready');
    assert.match(loopx.model.todo(todo.id)?.continuation ?? '', /without writing anything back/);
  });

  test('a host whose executable is missing is refused before anything is claimed', async () => {
    await hosts().update('custom.command', 'surely-not-an-installed-runner {prompt}', vscode.ConfigurationTarget.Global);
    const loopx = await app();
    const before = loopx.session.requireKernel().db.prepare('SELECT count(*) AS n FROM events').get()?.n;
    const { prompts } = await withAnswers({}, async () => vscode.commands.executeCommand('loopx.runTurn', { goalId, host: 'custom' }));
    assert.match(
      prompts.join('\n'),
      /error: LoopX: The custom host needs "surely-not-an-installed-runner", which is not on PATH; check the command \(setting loopx\.hosts\.custom\.command/,
    );
    assert.equal(loopx.session.requireKernel().db.prepare('SELECT count(*) AS n FROM events').get()?.n, before);
  });

  test("Run Turn offers the goal's own agent first, said so", async () => {
    const writer = otherWriter('planner');
    setGoalHost(writer.as(vscodeHuman), goalId, 'custom');
    addTodo(writer, { goalId, title: 'Offered to its own agent' });
    writer.close();
    // Escape at the pick: nothing starts.
    const run = await withAnswers({ picks: [() => undefined as unknown as vscode.QuickPickItem] }, async () =>
      vscode.commands.executeCommand('loopx.runTurn', { goalId }),
    );
    assert.match(run.prompts[0] ?? '', new RegExp(`^pick: LoopX: Run Turn on ${goalId} \\[Custom command \\|`), run.prompts.join('\n'));
  });

  test("auto-run (opt-in) starts a turn by itself when the goal should run, on the goal's own agent, and stops when nothing is ready", async () => {
    await useAgent('ship');
    const loopx = await app();
    // The setting names an agent CLI not installed here; the goal's own agent (custom, the test before) runs its turns.
    await vscode.workspace.getConfiguration('loopx.autoRun').update('host', 'qwen', vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('loopx.autoRun').update('enabled', true, vscode.ConfigurationTarget.Global);
    const startedBefore = loopx.autoRunner.started.length;
    // The lazy agent's todo waits for its retry; a todo a person adds meanwhile runs at once.
    const writer = otherWriter('planner');
    const hint = addTodo(writer, { goalId, title: 'Picked up by auto-run' });
    writer.close();
    await until(() => loopx.model.todo(hint.id)?.status === 'shipped', 'auto-run to ship the ready todos', 30_000);
    await until(() => loopx.turns.active.length === 0, 'the running turns to finish', 30_000);
    assert.ok(loopx.autoRunner.started.length > startedBefore, 'auto-run started a turn');
    await vscode.workspace.getConfiguration('loopx.autoRun').update('enabled', false, vscode.ConfigurationTarget.Global);
  });

  test('Review Packet renders decisions, shipped work with evidence, and the turns', async () => {
    const markdown = await vscode.commands.executeCommand<string>('loopx.reviewPacket', goalId);
    assert.match(markdown, /### Shipped[\s\S]*Checked by a scripted agent[\s\S]*report-T\d+\.txt/);
    assert.match(markdown, /\| R\d+ \| T\d+ \| implement \| custom \| custom \| .* \| wrote nothing back \| 0 \| no \|/);
  });
});

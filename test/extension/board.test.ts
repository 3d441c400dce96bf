import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { BoardPanel } from '../../src/extension/board/boardPanel';
import { addTodo } from '../../src/kernel/todos/todos';
import { claimTodo } from '../../src/kernel/todos/claims';
import { getTodo } from '../../src/kernel/todos/todoQueries';
import { createGoal, setGoalStatus } from '../../src/kernel/goals/goals';
import { app, otherWriter, until, vscodeHuman, withAnswers } from './support';

const events = async () => Number((await app()).session.requireKernel().db.prepare('SELECT count(*) AS n FROM events').get()?.n);

suite('board panel', () => {
  test('Open Board shows one panel with a strict CSP: a nonce for scripts and styles, nothing inline, no eval', async () => {
    // The panel object comes from the extension's own bundle: reach it through the command and the app, not a class import.
    const panel = await vscode.commands.executeCommand<BoardPanel>('loopx.openBoard');
    assert.equal(typeof panel.receive, 'function');
    assert.equal((await app()).board, panel);
    assert.equal(await vscode.commands.executeCommand('loopx.openBoard'), panel, 'a second Open Board reveals the same panel');
    const html = panel.panel.webview.html;
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-[A-Za-z0-9+/=]{20,}'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    const nonce = /nonce-([A-Za-z0-9+/=]+)/.exec(csp)?.[1];
    for (const tag of html.match(/<script[^>]*>/g) ?? []) assert.ok(tag.includes(`nonce="${nonce}"`), `${tag} carries the nonce`);
    assert.deepEqual(
      panel.panel.webview.options.localResourceRoots?.map((u) => u.path.split('/').slice(-2).join('/')),
      ['dist/webview'],
    );
  });

  test('hostile and malformed messages are refused before anything happens', async () => {
    const panel = (await app()).board as BoardPanel;
    const before = await events();
    const refusedBefore = panel.refused.length;
    const hostile: unknown[] = [
      null,
      'move T1',
      { type: 'move', requestId: 1, todoId: 'T1; DROP TABLE todos', to: 'shipped' },
      { type: 'move', requestId: 1, todoId: 'T1', to: 'nowhere' },
      { type: 'gateAction', requestId: 1, gateId: 'T1', action: 'approveGate' },
      { type: 'todoAction', requestId: 1, todoId: 'T1', action: 'approveGate' },
      { type: 'eval', code: 'process.exit(1)' },
      JSON.parse('{"type":"ready","__proto__":{"polluted":1}}'),
    ];
    for (const message of hostile) await panel.receive(message);
    await panel.receive({ type: 'openArtifact', path: '../../etc/passwd' });
    await panel.receive({ type: 'openArtifact', path: '/etc/passwd' });
    assert.equal(panel.refused.length - refusedBefore, hostile.length - 1 + 2, panel.refused.slice(refusedBefore).join('\n'));
    assert.equal(await events(), before);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('a valid move goes through the kernel as the person; a refused one changes nothing', async () => {
    const loopx = await app();
    const panel = (await app()).board as BoardPanel;
    const writer = otherWriter('planner');
    const ready = addTodo(writer, { goalId: 'G1', title: 'Moved on the board' });
    writer.close();
    await until(() => loopx.model.todo(ready.id), 'the new todo');
    await panel.receive({ type: 'move', requestId: 7, todoId: ready.id, to: 'claimed' });
    await until(
      () => loopx.model.todo(ready.id)?.owner === loopx.session.actor.name && loopx.model.todo(ready.id),
      'the claim by the person',
    );
    const before = await events();
    await panel.receive({ type: 'move', requestId: 8, todoId: ready.id, to: 'waiting' });
    assert.equal(await events(), before);
    const shipped = await withAnswers({ inputs: ['checked on the board'] }, async () =>
      panel.receive({ type: 'move', requestId: 9, todoId: ready.id, to: 'shipped' }),
    );
    assert.match(shipped.prompts[0] ?? '', /Ship T\d+/);
    await until(() => loopx.model.todo(ready.id)?.status === 'shipped', 'the ship');
    panel.dispose();
    assert.equal((await app()).board, undefined);
  });

  test("Move to Ready on another agent's live claim asks first, naming who holds it; cancelling changes nothing", async () => {
    const loopx = await app();
    const panel = await vscode.commands.executeCommand<BoardPanel>('loopx.openBoard');
    const writer = otherWriter('planner');
    const goalId = createGoal(writer.as(vscodeHuman), { title: 'Held by claude', maxConcurrent: 2 }).id;
    const todo = addTodo(writer, { goalId, title: 'Claude works on it' });
    claimTodo(writer.as({ name: 'claude', kind: 'agent' }), todo.id);
    await until(() => loopx.model.todo(todo.id)?.owner === 'claude' || undefined, 'the claim');
    const owner = () => loopx.session.requireKernel().read((db) => getTodo(db, todo.id)).owner;
    const kept = await withAnswers({}, async () => panel.receive({ type: 'move', requestId: 31, todoId: todo.id, to: 'ready' }));
    assert.match(
      kept.prompts.join('\n'),
      new RegExp(
        `^warning \\(modal\\): ${todo.id} Claude works on it is held by claude until [^.]+\\. Move it back to Ready\\? \\| claude may still be working on it`,
      ),
    );
    assert.equal(owner(), 'claude', 'cancelled: the claim is kept');
    const taken = await withAnswers({ warnings: ['Move to Ready'] }, async () =>
      panel.receive({ type: 'move', requestId: 32, todoId: todo.id, to: 'ready' }),
    );
    assert.equal(taken.prompts.length, 1);
    assert.equal(owner(), null, 'confirmed: back in Ready');
    setGoalStatus(writer.as(vscodeHuman), goalId, 'done');
    writer.close();
  });

  test('an error during Run Turn from the board reaches the board as that error, not as "cancelled"', async () => {
    const loopx = await app();
    const panel = await vscode.commands.executeCommand<BoardPanel>('loopx.openBoard');
    const writer = otherWriter('planner');
    const todo = addTodo(writer, { goalId: 'G1', title: 'Run from the board' });
    writer.close();
    await until(() => loopx.model.todo(todo.id), 'the new todo');
    const hosts = vscode.workspace.getConfiguration('loopx.hosts');
    await hosts.update('custom.command', 'surely-not-an-installed-runner {prompt}', vscode.ConfigurationTarget.Global);
    try {
      const pickCustom = (items: readonly vscode.QuickPickItem[]) => items.find((i) => (i as { host?: string }).host === 'custom');
      const { result, prompts } = await withAnswers({ picks: [pickCustom] }, async () =>
        panel.receive({ type: 'todoAction', requestId: 21, action: 'runTurn', todoId: todo.id }),
      );
      assert.deepEqual(result && { ...result, error: 'error' in result ? result.error?.code : undefined }, {
        type: 'result',
        requestId: 21,
        ok: false,
        error: 'host_missing',
      });
      assert.ok(
        prompts.every((p) => !p.startsWith('error:')),
        `the board shows it, not a notification: ${prompts.join('\n')}`,
      );
      assert.equal(loopx.model.todo(todo.id)?.status, 'open', 'nothing was claimed');
    } finally {
      await hosts.update('custom.command', undefined, vscode.ConfigurationTarget.Global);
      panel.dispose();
    }
  });

  test('Open on Board from a todo row shows that card on the board, once the board is ready', async () => {
    const loopx = await app();
    const t2 = { kind: 'todo', todo: loopx.model.todo('T2'), ready: false };
    const panel = await vscode.commands.executeCommand<BoardPanel>('loopx.openOnBoard', t2);
    try {
      await until(() => panel.revealed.some((r) => r.todoId === 'T2'), 'the board to be asked for T2');
      // Again on the open board: asked at once.
      await vscode.commands.executeCommand('loopx.openOnBoard', 'G1');
      await until(() => panel.revealed.some((r) => r.goalId === 'G1'), 'the board to be asked for G1');
    } finally {
      panel.dispose();
    }
  });
});

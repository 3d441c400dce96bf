import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { Kernel } from '../../src/kernel/kernel';
import { createGoal } from '../../src/kernel/ops/goals';
import { addTodo, blockTodo } from '../../src/kernel/ops/todos';
import { claimTodo, shipTodo } from '../../src/kernel/ops/claims';
import { askGate } from '../../src/kernel/ops/gates';
import { addMonitor } from '../../src/kernel/ops/monitors';
import { HOME, REPO } from './harness';
import { inWorkbench } from './ui';

/**
 * A board with a card in every column: T1 ready, T2 waiting on T1, T3 gated, T4 held by codex, T5 blocked, T6 shipped,
 * and T7 waiting on a monitor codex added instead of polling for a release build.
 */
function seed(workspace: string): void {
  const { kernel } = Kernel.init(workspace, { actor: { name: 'ada', kind: 'human' } });
  const codex = kernel.as({ name: 'codex', kind: 'agent' });
  const g = createGoal(kernel, { title: 'Ship the CSV importer' }).id;
  const t1 = addTodo(kernel, { goalId: g, title: 'Parse quoted fields', priority: 1 }).id;
  addTodo(kernel, { goalId: g, title: 'Stream large files', dependsOn: [t1] });
  const t3 = addTodo(kernel, { goalId: g, title: 'Drop the legacy importer' }).id;
  const t4 = addTodo(kernel, { goalId: g, title: 'Detect the delimiter', priority: 0 }).id;
  const t5 = addTodo(kernel, { goalId: g, title: 'Import from S3' }).id;
  const t6 = addTodo(kernel, { goalId: g, title: 'Set up the fixtures' }).id;
  askGate(codex, { todoId: t3, question: 'Delete the legacy importer? Nobody called it in 90 days.' });
  claimTodo(codex, t4);
  claimTodo(codex, t5);
  blockTodo(codex, t5, 'needs S3 credentials');
  claimTodo(codex, t6);
  shipTodo(codex, t6, { evidence: 'fixtures committed' });
  const t7 = addTodo(kernel, { goalId: g, title: 'Publish once the release build is green' }).id;
  claimTodo(codex, t7);
  addMonitor(codex, { todoId: t7, check: 'test -f build-done && echo "release build 311: green"', everySeconds: 10, note: 'release build 311 started' });
  kernel.close();
}

const step = (n: number, what: string) => console.log(`  board step ${n}: ${what}`);

/** The board in a real VS Code: drag, a refused move, a move that asks for input, the attention strip, live updates. */
export async function runBoardScenario(): Promise<void> {
  const workspace = mkdtempSync(join(HOME, 'ws-board-'));
  seed(workspace);
  await inWorkbench(workspace, 'board-failure', async (wb) => {
    const { page } = wb;
    step(1, 'open the board from the palette');
    await wb.openLoopx();
    await wb.row('G1 Ship the CSV importer').waitFor({ timeout: 30_000 });
    await wb.theme('Dark Modern');
    await wb.command('LoopX: Open Board');
    const board: FrameLocator = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const card = (id: string) => board.locator(`.card[data-id="${id}"]`);
    const inColumn = (id: string, column: string) => board.locator(`.column-${column} .card[data-id="${id}"]`);
    await inColumn('T1', 'ready').waitFor({ timeout: 30_000 });
    await inColumn('T2', 'waiting').waitFor();
    await inColumn('T4', 'claimed').waitFor();
    await board.locator('.attention-gate', { hasText: 'Delete the legacy importer' }).waitFor();
    await board.locator('body.vscode-dark').waitFor();
    await wb.shot('board-01-dark');

    step(2, 'drag T1 from Ready to In progress (a claim by the person)');
    await card('T1').dragTo(board.locator('.column-claimed'));
    await inColumn('T1', 'claimed').locator('.owner', { hasText: 'ada' }).waitFor({ timeout: 10_000 });
    await wb.shot('board-02-claimed');

    step(3, 'an illegal move: drag the gated T3 to Shipped; it snaps back and says why');
    await card('T3').dragTo(board.locator('.column-shipped'));
    const toast = board.locator('.toast', { hasText: 'needs a decision before it ships' });
    await toast.waitFor({ timeout: 10_000 });
    await inColumn('T3', 'waiting').waitFor();
    await wb.shot('board-03-refused');

    step(4, 'a move that needs input: drag T1 to Shipped; VS Code asks for evidence');
    await card('T1').dragTo(board.locator('.column-shipped'));
    await wb.answer('quoted fixtures pass (12 tests)', /Ship T1/);
    await inColumn('T1', 'shipped').waitFor({ timeout: 10_000 });
    await inColumn('T2', 'ready').waitFor({ timeout: 10_000 });
    // The refusal said why and then gets out of the way.
    await toast.waitFor({ state: 'detached', timeout: 10_000 });

    step(5, 'approve the gate from the attention strip');
    await board.locator('.attention-gate .button', { hasText: 'Approve' }).click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 10_000 });
    await dialog.locator('.monaco-button', { hasText: 'Approve' }).first().click();
    await wb.answer('yes, drop it', /Approve Q1/);
    await inColumn('T3', 'ready').waitFor({ timeout: 10_000 });
    await board.locator('.attention-gate').waitFor({ state: 'detached', timeout: 10_000 });

    step(6, 'a separate process ships T4 through bin/loopx; the card moves by itself');
    const shipped = spawnSync(process.execPath, [join(REPO, 'bin', 'loopx'), 'todo', 'ship', 'T4', '--evidence', 'sniffs , ; tab', '--json'], {
      cwd: workspace,
      env: { ...process.env, LOOPX_AGENT: 'codex' },
      encoding: 'utf8',
    });
    if (!JSON.parse(shipped.stdout).ok) throw new Error(`agent ship failed: ${shipped.stdout}`);
    await inColumn('T4', 'shipped').waitFor({ timeout: 5_000 });
    await wb.shot('board-04-live');

    step(7, 'keyboard: focus T2, open its menu with M, move it to In progress');
    await card('T2').focus();
    await page.keyboard.press('m');
    await board.locator('.menu-popup [role="menuitem"]', { hasText: 'Move to In progress' }).waitFor();
    await page.keyboard.press('Enter');
    await inColumn('T2', 'claimed').waitFor({ timeout: 10_000 });

    step(8, 'the detail pane, then the light theme');
    await card('T1').click();
    await board.locator('.detail', { hasText: 'quoted fixtures pass' }).waitFor({ timeout: 10_000 });
    await wb.shot('board-05-detail-dark');
    await wb.theme('Light Modern');
    await board.locator('body.vscode-light').waitFor({ timeout: 15_000 });
    await page.waitForTimeout(300);
    await wb.shot('board-06-detail-light');

    step(9, 'a monitor on a Waiting card: the window runs its check; when the build is green the card moves to Ready, with a notification');
    const monitored = inColumn('T7', 'waiting').locator('.card-monitor', { hasText: 'test -f build-done' });
    await monitored.waitFor({ timeout: 10_000 });
    await monitored.locator('.monitor-last', { hasText: 'exit 1' }).waitFor({ timeout: 15_000 });
    await wb.shot('board-07-monitor-waiting');
    writeFileSync(join(workspace, 'build-done'), '');
    await inColumn('T7', 'ready').waitFor({ timeout: 20_000 });
    await page.locator('.notifications-toasts', { hasText: 'monitor M1 fired' }).waitFor({ timeout: 10_000 });
    await card('T7').click();
    await board.locator('.detail', { hasText: 'release build 311: green' }).waitFor({ timeout: 10_000 });
    await wb.shot('board-08-monitor-fired');
  });
}

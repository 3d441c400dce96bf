import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { Kernel } from '../../src/kernel/kernel';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo, blockTodo, unblockTodo, shipTodo } from '../../src/kernel/todos/todos';
import { claimTodo, releaseTodo } from '../../src/kernel/todos/claims';
import { askGate, decideGate } from '../../src/kernel/gates/gates';
import { addEvidence } from '../../src/kernel/evidence/evidence';
import { addMonitor } from '../../src/kernel/monitors/monitors';
import { settleDue } from '../../src/kernel/monitors/tickSteps';
import { startTurn } from '../../src/kernel/turns/turns';
import { finishTurn } from '../../src/kernel/turns/turnFinish';
import { addHook } from '../../src/kernel/hooks/hooks';
import { HOME, REPO } from './harness';
import { inWorkbench } from './ui';

const H = 3600_000;
const human = { name: 'ada', kind: 'human', channel: 'vscode' } as const;

/**
 * Four days of a goal, scripted on a clock that starts four days ago: turns that ship, one that fails, a gate asked
 * and decided after hours, a block over night, a monitor on a CI run, work still open. Then a hook ada set that
 * appends what it heard to hook-ran.log. Returns the event the board is looked at later (T3 still in progress).
 */
function seed(workspace: string): { lookAt: number } {
  let now = Date.now() - 4 * 24 * H;
  const { kernel } = Kernel.init(workspace, { actor: human, clock: () => now });
  const codex = kernel.as({ name: 'codex', kind: 'agent' });
  const at = (hours: number) => (now += hours * H);
  const long = { leaseSeconds: 12 * 3600 };
  const g = createGoal(kernel, { title: 'Ship the CSV importer', objective: 'Every fixture in fixtures/csv imports' }).id;
  const titles = [
    'Parse quoted fields',
    'Detect the delimiter',
    'Stream large files',
    'Import from S3',
    'Drop the legacy importer',
    'Report bad rows',
    'Publish once CI is green',
    'Document the importer',
  ];
  const ids = titles.map((title) => addTodo(kernel, { goalId: g, title }).id);
  const work = (i: number, hours: number, fail = false) => {
    const turn = startTurn(codex, { goalId: g, host: 'codex', todoId: ids[i], leaseSeconds: 12 * 3600 }).turn;
    at(hours);
    if (fail) return finishTurn(codex, turn.id, 1);
    addEvidence(codex, { todoId: ids[i] as string, summary: `${titles[i]}: tests pass` });
    shipTodo(codex, ids[i] as string, { evidence: 'fixtures pass' });
    return finishTurn(codex, turn.id, 0);
  };
  at(1);
  work(0, 2);
  at(1);
  work(1, 1.5);
  claimTodo(codex, ids[4] as string, long);
  askGate(codex, { todoId: ids[4], question: 'Delete the legacy importer? Nobody called it in 90 days.' });
  releaseTodo(codex, ids[4] as string);
  at(9);
  decideGate(kernel, 'Q1', 'approved', 'yes, drop it');
  at(2);
  work(4, 1);
  claimTodo(codex, ids[3] as string, long);
  blockTodo(codex, ids[3] as string, 'needs S3 credentials');
  at(14);
  unblockTodo(kernel, ids[3] as string, 'credentials in the vault');
  at(1);
  work(3, 3);
  work(5, 2, true);
  at(2);
  claimTodo(codex, ids[6] as string, long);
  addMonitor(codex, { todoId: ids[6] as string, afterSeconds: 3 * 3600, note: 'release build 311' });
  at(4);
  settleDue(kernel);
  work(6, 1);
  at(3);
  claimTodo(codex, ids[2] as string, long);
  const lookAt = Number(kernel.db.prepare('SELECT max(seq) AS n FROM events').get()?.n);
  at(5);
  addEvidence(codex, { todoId: ids[2] as string, summary: 'streams 2 GB in 40 s' });
  shipTodo(codex, ids[2] as string, { evidence: 'streams 2 GB' });
  // ada asks to hear about gates and blocks (in VS Code; an agent could not set this).
  addHook(kernel, { command: 'echo "$LOOPX_EVENT $LOOPX_SUBJECT" >> "$LOOPX_ROOT/hook-ran.log"', on: ['gate.asked', 'todo.blocked'] });
  kernel.close();
  return { lookAt };
}

let began = Date.now();
const step = (n: number | string, what: string) =>
  console.log(`  story step ${n} (at ${((Date.now() - began) / 1000).toFixed(1)} s): ${what}`);

/** The webview frame (of several side by side) that holds `selector`. */
async function webviewWith(page: Page, selector: string): Promise<FrameLocator> {
  for (let attempt = 0; attempt < 60; attempt++) {
    const count = await page.locator('iframe.webview.ready').count();
    for (let i = 0; i < count; i++) {
      const frame = page.frameLocator('iframe.webview.ready').nth(i).frameLocator('#active-frame');
      if ((await frame.locator(selector).count()) > 0) return frame;
    }
    await page.waitForTimeout(500);
  }
  throw new Error(`no webview shows ${selector}`);
}

/** The goal story beside the board, the board at a past moment, and word of events through a hook and notifications. */
export async function runStoryScenario(): Promise<void> {
  const workspace = mkdtempSync(join(HOME, 'ws-story-'));
  const { lookAt } = seed(workspace);
  began = Date.now();
  await inWorkbench(workspace, 'story-failure', async (wb) => {
    const { page } = wb;
    step(1, 'open the board, then the story from its toolbar');
    await wb.openLoopx();
    await wb.row('G1 Ship the CSV importer').waitFor({ timeout: 30_000 });
    await wb.theme('Dark Modern');
    await wb.command('LoopX: Open Board');
    const board = await webviewWith(page, '.columns');
    await board.locator('.column-shipped .card[data-id="T3"]').waitFor({ timeout: 30_000 });
    await board.getByRole('button', { name: 'Story', exact: true }).click();
    const story = await webviewWith(page, '#story-body');
    await story.locator('.tile').first().waitFor({ timeout: 30_000 });
    for (const title of ['Timeline', 'Burn-down of open work', 'Throughput per day', 'Where the time went', 'Cost per day'])
      await story.locator('.chart-card h2', { hasText: title }).first().waitFor();
    // The numbers are one hover away: each day's bar has them in its tooltip.
    const dayTitles = await story.locator('#story-throughput svg .hit title').allTextContents();
    if (!dayTitles.some((t) => /: [1-9]\d* shipped · \d+ turns?/.test(t)))
      throw new Error(`no day tooltip with numbers: ${dayTitles.join(' | ')}`);
    await story.locator('.tile', { hasText: 'waiting on a person' }).waitFor();
    await story.locator('.empty-chart', { hasText: 'No turn of this goal reported what it cost' }).waitFor();
    // The prompt cache's tile: the seeded turns reported no usage, and it says so in words.
    await story.locator('.tile', { hasText: 'prompt cache' }).filter({ hasText: "no turn's input is known yet" }).waitFor();
    await story.locator('#story-range').selectOption('all');
    const gateMark = story.locator('#story-timeline svg rect.c-gate title', { hasText: 'gate Q1' });
    if (!/approved by ada after 9\.0 h/.test((await gateMark.first().textContent()) ?? ''))
      throw new Error('the gate span does not tell its wait');
    await page.waitForTimeout(300);
    await wb.shot('story-01-dark');

    step(2, 'the light theme');
    await wb.theme('Light Modern');
    await story.locator('body.vscode-light').waitFor({ timeout: 15_000 });
    await page.waitForTimeout(300);
    await wb.shot('story-02-light');
    await wb.theme('Dark Modern');

    step(3, 'the board at a past moment: T3 was in progress then; read-only');
    await board.getByRole('button', { name: 'History', exact: true }).click();
    const slider = board.locator('#history-slider');
    // The bar opens at the newest event; the slider spans the log once that first answer is in (until then it is 0–1).
    await board.locator('.history-label', { hasText: /event [\d,]+ of [\d,]+/ }).waitFor({ timeout: 15_000 });
    await board.locator('#history-slider:not([max="1"])').waitFor({ timeout: 15_000 });
    // The time field: one 24-hour form whatever the browser's language; what it cannot read it says, and moves nothing.
    const when = board.locator('#history-time');
    const shown = await when.inputValue();
    if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/.test(shown)) throw new Error(`the time field shows "${shown}"`);
    await when.fill('12/03/2026, 4:20 PM');
    await when.press('Enter');
    await board.locator('.history-label', { hasText: 'Type a time as 2026-12-03 14:30, or 14:30 for today' }).waitFor({ timeout: 10_000 });
    await board.locator('#history-time[aria-invalid="true"]').waitFor();
    await slider.evaluate((el, seq) => {
      const input = el as HTMLInputElement;
      input.value = String(seq);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }, lookAt);
    await board.locator('.history-label', { hasText: `event ${lookAt.toLocaleString()} of` }).waitFor({ timeout: 15_000 });
    await board.locator('.column-claimed .card[data-id="T3"]').waitFor({ timeout: 15_000 });
    await board.locator('body.past-mode').waitFor();
    // What would act is inert and says why: the card's menu is disabled for a screen reader, its tooltip says why,
    // and a click opens no menu but the read-only notice.
    const menu = board.locator('.card[data-id="T3"] .card-menu');
    await board.locator('.card[data-id="T3"] .card-menu[aria-disabled="true"]').waitFor({ timeout: 10_000 });
    if (!/Go back to now to change anything/.test((await menu.getAttribute('title')) ?? ''))
      throw new Error('the inert menu does not say why');
    await menu.click({ force: true }); // an aria-disabled button is not "enabled" to playwright; a person can still click it
    await board.locator('.toast', { hasText: 'This is the board as it was then' }).waitFor({ timeout: 10_000 });
    if (await board.locator('.menu-popup').count()) throw new Error('a menu opened on the board of the past');
    await board.locator('.card[data-id="T3"]').dragTo(board.locator('.column-ready'));
    await board.locator('.toast', { hasText: 'This is the board as it was then' }).waitFor({ timeout: 10_000 });
    await wb.shot('story-03-board-history');

    step(4, 'back to now: T3 is shipped, and the board lists what changed since');
    await board.getByRole('button', { name: 'Back to now', exact: true }).click();
    await board.locator('.column-shipped .card[data-id="T3"]').waitFor({ timeout: 15_000 });
    // The read-only notice (shown a moment ago, it would last 6 s) is gone with the past: it is untrue now.
    if ((await board.locator('.toast', { hasText: 'This is the board as it was then' }).count()) !== 0)
      throw new Error('the read-only notice outlived the past board');
    const changes = board.locator('.changes');
    await changes.locator('strong', { hasText: /change.* since then/ }).waitFor({ timeout: 15_000 });
    await changes.locator('li', { hasText: 'Stream large files: In progress → Shipped' }).waitFor();
    await wb.shot('story-04-board-changes');

    step(5, 'word when away: an agent asks a gate and blocks a todo from a terminal; the window runs the hook once and says so');
    const cli = (...args: string[]) => {
      const r = spawnSync(process.execPath, [join(REPO, 'bin', 'loopx'), ...args, '--json'], {
        cwd: workspace,
        env: { ...process.env, LOOPX_AGENT: 'codex' },
        encoding: 'utf8',
      });
      if (!JSON.parse(r.stdout).ok) throw new Error(`loopx ${args.join(' ')} failed: ${r.stdout}${r.stderr}`);
    };
    cli('gate', 'ask', '--todo', 'T8', '--question', 'Publish the docs on the website?');
    cli('todo', 'claim', 'T6');
    cli('todo', 'block', 'T6', '--reason', 'needs a sample of bad rows');
    await page.locator('.notifications-toasts', { hasText: 'T6 is blocked' }).waitFor({ timeout: 15_000 });
    const log = join(workspace, 'hook-ran.log');
    for (let i = 0; i < 40 && !(existsSync(log) && readFileSync(log, 'utf8').includes('todo.blocked T6')); i++)
      await page.waitForTimeout(250);
    const lines = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
    if (JSON.stringify(lines.sort()) !== JSON.stringify(['gate.asked Q2', 'todo.blocked T6']))
      throw new Error(`the hook ran as: ${JSON.stringify(lines)}`);
    await wb.shot('story-05-word');
    step('end', 'done');
  });
}

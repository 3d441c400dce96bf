import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { Kernel } from '../../src/kernel/kernel';
import { shipOnBranch, worktreeRepo } from '../fixtures/worktreeRepo';
import { HOME } from './harness';
import { inWorkbench } from './ui';

const step = (n: number | string, what: string) => console.log(`  worktree step ${n}: ${what}`);

/**
 * A person with parallel agents on one repository: New Goal with a worktree base, an agent's turn that commits on its
 * todo's branch and ships (scripted here with the kernel, as `turn start` does), the branch on the board's card, its
 * diff one click away, and the merge from the card (a person's decision, recorded with the VS Code channel).
 */
export async function runWorktreeScenario(): Promise<void> {
  const repo = worktreeRepo({ parent: realpathSync(mkdtempSync(join(HOME, 'ws-wt-'))), goal: false });
  repo.kernel.close();
  const { root } = repo;
  await inWorkbench(root, 'worktree-failure', async (wb) => {
    const { page } = wb;
    await wb.openLoopx();
    step(1, 'New Goal: the worktree step starts empty and suggests the branch checked out (main); the goal gets worktrees from it');
    const newGoal = page.locator('.welcome-view-content .monaco-button', { hasText: 'New Goal' }).first();
    await newGoal.waitFor({ timeout: 60_000 });
    await newGoal.click();
    await wb.answer('Parallel work', /New Goal \(1\/9\)/);
    await wb.answer('Three agents at once', /New Goal \(2\/9\)/);
    await wb.answer('', /New Goal \(3\/9\)/);
    await wb.answer('20', /New Goal \(4\/9\)/);
    await wb.answer('', /New Goal \(5\/9\)/);
    await wb.answer('', /New Goal \(6\/9\)/);
    const input = page.locator('.quick-input-widget input');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: /New Goal \(7\/9\) Worktrees/ }).waitFor({ timeout: 30_000 });
    // Empty to start (Enter leaves worktrees off, as its text says); the branch checked out is the suggestion.
    const offered = await input.inputValue();
    if (offered !== '') throw new Error(`the worktree step starts with ${JSON.stringify(offered)}, not empty`);
    const suggested = (await input.getAttribute('placeholder')) ?? '';
    if (!suggested.includes('e.g. main'))
      throw new Error(`the worktree step suggests ${JSON.stringify(suggested)}, not the branch checked out (main)`);
    // A base that is not a branch is refused in words while typing; nothing is created.
    await input.fill('no-such-branch');
    await page.locator('.quick-input-widget', { hasText: 'No branch or commit named “no-such-branch”' }).waitFor({ timeout: 30_000 });
    await wb.answer('main', /New Goal \(7\/9\)/);
    await wb.answer('', /New Goal \(8\/9\) Agent/); // Enter: Choose at each turn
    await wb.answer('', /New Goal \(9\/9\) Review/); // Enter: No review
    await wb.answer('Later', /created G1 Parallel work\. Plan its todos/);
    await wb.row('G1 Parallel work').waitFor({ timeout: 30_000 });

    step(2, "an agent's turn works on T1's own branch, commits and ships (the kernel, as turn start does)");
    const kernel = Kernel.open(root, { actor: { name: 'ada', kind: 'human', channel: 'tty' } });
    let shipped: ReturnType<typeof shipOnBranch>;
    try {
      const worktreeBase = kernel.read((db) => db.prepare(`SELECT worktree_base FROM goals WHERE id = 'G1'`).get()?.worktree_base);
      if (worktreeBase !== 'main') throw new Error(`New Goal left G1 without worktrees (base ${String(worktreeBase)})`);
      shipped = shipOnBranch(kernel, 'G1', 'Parse quoted fields', {
        'parse.ts': 'export const parse = 1;\n',
        'shared.txt': 'one\nTWO\nthree\n',
      });
    } finally {
      kernel.close();
    }

    step(3, 'the board: the card names the branch, what it holds and that it waits for a person');
    await wb.command('LoopX: Open Board');
    const board: FrameLocator = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const branchLine = board.locator('.column-shipped .card[data-id="T1"] .card-branch');
    await branchLine.locator('.branch-name', { hasText: shipped.branch }).waitFor({ timeout: 60_000 });
    await branchLine.locator('.branch-size', { hasText: '1 commit · 2 files +2 −1' }).waitFor({ timeout: 30_000 });
    await board.locator('.card.to-land[data-id="T1"]').waitFor();
    // …and Needs you says so, with Changes and Merge… beside it.
    const needsYou = board.locator('.attention-land', { hasText: `${shipped.branch} waits for you to land it` });
    await needsYou.waitFor({ timeout: 30_000 });
    await wb.shot('worktree-01-card');

    step(4, 'Changes on the card opens the multi-file diff of the branch against main');
    await branchLine.getByRole('button', { name: `Show Changes of T1: ${shipped.branch}` }).click();
    const diffTab = page.locator('.tabs-container .tab', { hasText: `T1: ${shipped.branch} ↔ main` });
    await diffTab.waitFor({ timeout: 60_000 });
    // The branch's side, served from the commit (not the folder): the new file's text is on screen.
    await page.locator('.part.editor .view-line', { hasText: 'export const parse = 1;' }).first().waitFor({ timeout: 60_000 });
    await page.locator('.part.editor', { hasText: 'shared.txt' }).first().waitFor({ timeout: 30_000 });
    await wb.shot('worktree-02-diff');

    step(5, 'Merge… from the card: VS Code asks, the person merges, main moves forward and the card says so');
    await page.locator('.tabs-container .tab', { hasText: 'LoopX Board' }).click();
    await branchLine.getByRole('button', { name: `Merge of T1: ${shipped.branch}` }).click();
    const dialog = page.locator('.monaco-dialog-box', { hasText: `Merge ${shipped.branch} into main?` });
    await dialog.waitFor({ timeout: 30_000 });
    await dialog.locator('.monaco-button', { hasText: /^Merge$/ }).click();
    await board
      .locator('.column-shipped .card[data-id="T1"] .card-branch .branch-size', { hasText: 'merged into main' })
      .waitFor({ timeout: 60_000 });
    await board.locator('.card.to-land[data-id="T1"]').waitFor({ state: 'detached', timeout: 30_000 });
    await needsYou.waitFor({ state: 'detached', timeout: 30_000 });
    const main = execFileSync('git', ['rev-parse', 'main'], { cwd: root, encoding: 'utf8' }).trim();
    const head = execFileSync('git', ['rev-parse', shipped.branch], { cwd: root, encoding: 'utf8' }).trim();
    if (main !== head) throw new Error(`main is at ${main}, not at the branch's head ${head}`);
    const after = Kernel.open(root, { actor: { name: 'ada', kind: 'human', channel: 'tty' } });
    try {
      const landed = after.read((db) => db.prepare(`SELECT landed_by, landed_channel, status FROM worktrees WHERE todo_id = 'T1'`).get());
      if (landed?.status !== 'merged' || landed.landed_channel !== 'vscode' || landed.landed_by !== 'ada')
        throw new Error(`the merge was not recorded as ada's through VS Code: ${JSON.stringify(landed)}`);
    } finally {
      after.close();
    }
    await wb.shot('worktree-03-merged');
  });
}

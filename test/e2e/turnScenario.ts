import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kernel } from '../../src/kernel/kernel';
import { createGoal } from '../../src/kernel/ops/goals';
import { addTodo } from '../../src/kernel/ops/todos';
import { HOME, REPO } from './harness';
import { inWorkbench } from './ui';

const step = (n: number, what: string) => console.log(`  turn step ${n}: ${what}`);

/** Run Turn as a person does it: palette → host → a terminal where a scripted agent works → the views update. */
export async function runTurnScenario(): Promise<void> {
  const workspace = mkdtempSync(join(HOME, 'ws-turn-'));
  const { kernel } = Kernel.init(workspace, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
  const goal = createGoal(kernel, { title: 'Ship the CSV importer', turnsPerWindow: 6 }).id;
  addTodo(kernel, { goalId: goal, title: 'Parse quoted fields', detail: 'quoted fixtures pass' });
  kernel.close();
  // Workspace settings: the scripted agent is this workspace's custom host.
  mkdirSync(join(workspace, '.vscode'));
  const agent = join(REPO, 'test', 'extension', 'fixtures', 'scriptedAgent.mjs');
  writeFileSync(
    join(workspace, '.vscode', 'settings.json'),
    JSON.stringify({ 'loopx.defaultHost': 'custom', 'loopx.hosts.custom.command': `node ${agent} {prompt} ship` }, null, 2),
  );
  await inWorkbench(workspace, 'turn-failure', async (wb) => {
    const { page } = wb;
    // A workspace with a store, opened for the first time: the LoopX view comes to the front by itself.
    await page.locator('.part.sidebar .composite.title', { hasText: 'LoopX' }).first().waitFor({ timeout: 30_000 });
    await wb.row('G1 Ship the CSV importer').waitFor({ timeout: 30_000 });
    await wb.openLoopx();
    step(1, 'palette → Run Turn → the custom host');
    await wb.command('LoopX: Run Turn…');
    await wb.answer('custom', /Run Turn on G1 with/);
    await page
      .locator('.notification-toast', { hasText: /turn R1 .* ended: validated completion; quota spent/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await page.locator('.xterm-rows', { hasText: 'scripted agent: shipped T1' }).first().waitFor({ timeout: 30_000 });
    await wb.row(/^\s*Shipped\s*1\s*$/).waitFor({ timeout: 30_000 });
    await wb.statusItem('G1 1/6').waitFor({ timeout: 30_000 });
    await wb.shot('turn-01-shipped');
    step(2, 'Run Turn again: every todo shipped, so no terminal, and that reason in words');
    await wb.command('LoopX: Run Turn…');
    await wb.answer('custom', /Run Turn on G1 with/);
    await page
      .locator('.notification-toast', { hasText: /no turn started\. G1 waits: every todo has shipped/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await wb.shot('turn-02-no-ready-work');
  });
}

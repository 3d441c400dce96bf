import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { HOME, REPO, RESULTS } from './harness';
import { inWorkbench } from './ui';

/** Another process acting as an agent in a terminal. */
function agent(workspace: string, args: string[]): unknown {
  const r = spawnSync(process.execPath, [join(REPO, 'bin', 'loopx'), ...args, '--json'], {
    cwd: workspace,
    env: { ...process.env, LOOPX_AGENT: 'codex' },
    encoding: 'utf8',
  });
  const out = JSON.parse(r.stdout) as { ok: boolean; data: unknown };
  if (!out.ok) throw new Error(`loopx ${args.join(' ')} failed: ${r.stdout}`);
  return out.data;
}

const step = (n: number, what: string) => console.log(`  ui step ${n}: ${what}`);

/**
 * A person's first session: initialise from the welcome view, create a goal and todos through the palette, watch an
 * agent (a separate bin/loopx process) claim and ship, then approve the agent's gate from the Gates view; then the
 * dashboard, opened from the palette, in the browser.
 */
export async function runScenario(): Promise<void> {
  const workspace = mkdtempSync(join(HOME, 'ws-ui-'));
  await inWorkbench(workspace, 'failure', async (wb) => {
    const { page } = wb;
    await wb.openLoopx();
    step(1, 'welcome view → Initialize');
    const init = page.locator('.welcome-view-content a, .welcome-view-content .monaco-button', { hasText: 'Initialize LoopX' }).first();
    await init.waitFor({ timeout: 30_000 });
    await wb.shot('01-welcome');
    await init.click();
    await page.locator('.welcome-view-content .monaco-button', { hasText: 'New Goal' }).first().waitFor({ timeout: 30_000 });
    if (!existsSync(join(workspace, '.loopx', 'loopx.db'))) throw new Error('Initialize did not create .loopx/loopx.db');
    await wb.shot('02-initialized');

    step(2, 'palette → New Goal (nine steps; the two caps and the worktree base left empty, the agent chosen at each turn, no review)');
    await wb.command('LoopX: New Goal…');
    await wb.answer('Ship the CSV importer', /New Goal \(1\/9\)/);
    await wb.answer('Any RFC 4180 file imports', /New Goal \(2\/9\)/);
    await wb.answer('src/import/**', /New Goal \(3\/9\)/);
    await wb.answer('20', /New Goal \(4\/9\)/);
    await wb.answer('', /New Goal \(5\/9\) Token cap/);
    await wb.answer('', /New Goal \(6\/9\) Money cap/);
    await wb.answer('', /New Goal \(7\/9\) Worktrees/);
    await wb.answer('', /New Goal \(8\/9\) Agent/); // Enter: the first item, Choose at each turn
    await wb.answer('', /New Goal \(9\/9\) Review/); // Enter: the first item, No review
    // How to plan its todos is the next step of the flow (a pick that waits), not a toast: todos here, later.
    await wb.answer('Later', /created G1 Ship the CSV importer\. Plan its todos/);
    await wb.row('G1 Ship the CSV importer').waitFor({ timeout: 30_000 });

    step(3, 'palette → Add Todo, twice');
    for (const [title, priority] of [
      ['Parse quoted fields', 'P1'],
      ['Stream large files', 'P2'],
    ] as const) {
      await wb.command('LoopX: Add Todo…');
      await wb.answer(title, /Add Todo to G1/);
      await wb.answer('', /Add Todo to G1/);
      await wb.answer(priority, /priority/);
      // The first todo has nothing to depend on, so the dependency pick only comes for the second.
      if (title !== 'Parse quoted fields') await wb.answer('', /depends on/);
      // The new todo's own row, with the priority just given (not merely its title somewhere on screen).
      await wb.row(new RegExp(`T\\d ${title}.*${priority}`)).waitFor({ timeout: 30_000 });
    }
    // Both are ready: nothing holds them back.
    await wb.row(/^\s*Ready\s*2\s*$/).waitFor({ timeout: 30_000 });
    // The side bar gives its room to the goals: Gates (empty here) keeps little of it.
    const bodyHeight = async (title: string) => (await wb.pane(title).locator('.pane-body').boundingBox())?.height ?? 0;
    const [goalsHeight, gatesHeight] = [await bodyHeight('Goals'), await bodyHeight('Gates')];
    console.log(`  side bar: Goals ${Math.round(goalsHeight)} px, Gates ${Math.round(gatesHeight)} px`);
    if (goalsHeight < 3 * gatesHeight) throw new Error(`the Goals view has ${goalsHeight} px, Gates ${gatesHeight} px`);
    await wb.statusItem('G1 0/20').waitFor({ timeout: 30_000 });
    await wb.shot('03-goal-and-todos');

    step(4, 'palette → Claim Todo: what is ready comes first; the claim is confirmed');
    await wb.command('LoopX: Claim Todo');
    const pick = page.locator('.quick-input-widget');
    await pick.locator('.quick-input-title', { hasText: 'Claim Todo' }).waitFor({ timeout: 30_000 });
    await pick.locator('.quick-input-list', { hasText: 'Ready to claim' }).waitFor({ timeout: 30_000 });
    await wb.shot('04-claim-pick');
    await wb.answer('T2 Stream');
    await page
      .locator('.notification-toast', { hasText: /you hold T2 Stream large files until/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await wb.row(/T2 Stream large files.*ada · lease/).waitFor({ timeout: 30_000 });

    step(5, "the status bar says G1 can still run: the person's own claim takes none of its one agent slot");
    await wb.statusItem('G1 0/20').click();
    await pick
      .locator('.quick-input-list', { hasText: /Ready to run a turn · \d+ left · next: T1 Parse quoted fields/ })
      .waitFor({ timeout: 30_000 });
    await wb.shot('05-quota-pick');
    await page.keyboard.press('Escape');

    step(6, 'an agent claims (G1 now waits: both todos held, said in words), spends a turn and ships through bin/loopx');
    agent(workspace, ['todo', 'claim', '--next']);
    // T1's row says codex holds it (a lease), and the In progress group now counts both claims.
    await wb.row(/T1 Parse quoted fields.*codex · lease/).waitFor({ timeout: 30_000 });
    await wb.row(/^\s*In progress\s*2\s*$/).waitFor({ timeout: 30_000 });
    await wb.shot('06-agent-claimed');
    await wb.statusItem('G1 0/20').click();
    await pick.locator('.quick-input-list', { hasText: /Waits: nothing is left to start \(2 in progress\)/ }).waitFor({ timeout: 30_000 });
    if (/concurrency_limit/.test(await pick.innerText())) throw new Error('the quick pick shows a reason code');
    await page.keyboard.press('Escape');
    agent(workspace, ['quota', 'spend', '--goal', 'G1', '--turn', 'codex-run-1']);
    agent(workspace, ['todo', 'ship', 'T1', '--evidence', 'quoted fixtures pass (12 tests)']);
    await wb.statusItem('G1 1/20').waitFor({ timeout: 30_000 });
    // The Shipped group (folded) counts T1, and unfolded it holds T1's row (not just any text saying "shipped").
    const shippedGroup = wb.row(/^\s*Shipped\s*1\s*$/);
    await shippedGroup.waitFor({ timeout: 30_000 });
    await shippedGroup.click();
    await page.locator('.monaco-list-row[aria-label^="T1 Parse quoted fields, shipped"]').first().waitFor({ timeout: 30_000 });
    await wb.shot('07-agent-shipped');

    step(7, 'the agent asks a gate; a notification appears; approve it from the Gates view');
    agent(workspace, ['gate', 'ask', '--todo', 'T2', '--question', 'Stream with Node streams instead of reading whole files?']);
    await page.locator('.notification-toast', { hasText: 'gate Q1' }).first().waitFor({ timeout: 30_000 });
    await wb.shot('08-gate-notification');
    const gates = wb.pane('Gates');
    const collapsed = gates.locator('.pane-header[aria-expanded="false"]');
    if (await collapsed.count()) await collapsed.click();
    const gateRow = gates.locator('.monaco-list-row', { hasText: 'Stream with Node streams' }).first();
    await gateRow.waitFor({ timeout: 30_000 });
    await gateRow.hover();
    await gateRow.locator('.action-label[aria-label="Approve Gate…"]').click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    if (!(await dialog.innerText()).includes('Stream with Node streams')) throw new Error('the approval dialog does not show the question');
    await wb.shot('09-approve-dialog');
    await dialog.locator('.monaco-button', { hasText: /^Approve with a Note…$/ }).click();
    await wb.answer('go ahead', /Approve Q1/);
    await gates
      .locator('.monaco-list-row', { hasText: /approved by ada/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await wb.shot('10-gate-approved');

    step(8, 'palette → Get Started opens the walkthrough');
    await wb.command('LoopX: Get Started');
    await page.locator('.gettingStartedContainer', { hasText: 'Get started with LoopX' }).first().waitFor({ timeout: 30_000 });
    await page.locator('.gettingStartedContainer', { hasText: 'Connect your agent' }).first().waitFor({ timeout: 30_000 });
    // The checkmarks say what is true: a store, a goal, an agent that wrote, a decided gate; no turn has run.
    const stepChecked = (id: string, checked: boolean) =>
      page
        .locator(`.gettingStartedContainer button.getting-started-step[data-step-id$="#${id}"][aria-checked="${checked}"]`)
        .first()
        .waitFor({ timeout: 30_000 });
    for (const id of ['initialize', 'newGoal', 'connectAgent', 'decideGate']) await stepChecked(id, true);
    await stepChecked('runTurn', false);
    await wb.shot('11-walkthrough');

    step(9, "palette → Open Dashboard: the browser opens it (through code-server's proxy) with this project in it, live");
    const opened = page.context().waitForEvent('page', { timeout: 60_000 });
    // Awaited below; should the command fail first, its error is the one to report, not this wait's rejection when the
    // browser closes (an unhandled rejection that ended the run with "Target page, context or browser has been closed").
    opened.catch(() => undefined);
    await wb.command('LoopX: Open Dashboard');
    const dashboard = await opened;
    await dashboard
      .locator('.connection.live')
      .waitFor({ timeout: 60_000 })
      .catch(async (error: unknown) => {
        await dashboard.screenshot({ path: join(RESULTS, 'failure-dashboard.png') }).catch(() => undefined);
        throw new Error(
          `the dashboard at ${dashboard.url()} did not go live: ${String(error)}\n${await dashboard.content().catch(() => '')}`,
        );
      });
    const name = workspace.split('/').pop() as string;
    await dashboard.locator('article.project h2', { hasText: name }).waitFor({ timeout: 30_000 });
    if (dashboard.url().includes('secret=')) throw new Error(`the secret stayed in the address bar: ${dashboard.url()}`);
    agent(workspace, ['gate', 'ask', '--goal', 'G1', '--question', 'Ship the CSV importer today?']);
    // This project's gate: the dashboard lists every project of the person's, and an earlier run's workspace (kept an
    // hour: main.ts removeScratch) asked the same question.
    await dashboard.locator('.item', { hasText: 'Ship the CSV importer today?' }).filter({ hasText: name }).waitFor({ timeout: 30_000 });
    await dashboard.screenshot({ path: join(RESULTS, '12-dashboard.png') });
    await dashboard.close();
  });
}

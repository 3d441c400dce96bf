import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kernel } from '../../src/kernel/kernel';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { HOME, PROFILE, REPO } from './harness';
import { profileEnv } from './profiles';
import { inWorkbench } from './ui';
import { startModelServer } from '../agents/modelServer';
import { agentBin, agentEnv, shipScript } from '../agents/agentEnv';

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
    await wb.answer('custom', /Run Turn on G1/);
    await page
      .locator('.notification-toast', { hasText: /turn R1 .* ended: shipped its todo; quota spent/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await page.locator('.xterm-rows', { hasText: 'scripted agent: shipped T1' }).first().waitFor({ timeout: 30_000 });
    await wb.row(/^\s*Shipped\s*1\s*$/).waitFor({ timeout: 30_000 });
    await wb.statusItem('G1 1/6').waitFor({ timeout: 30_000 });
    await wb.shot('turn-01-shipped');
    step(2, 'Run Turn again: every todo shipped, so no terminal, and that reason in words before any agent is asked, with a way forward');
    await wb.command('LoopX: Run Turn…');
    const toast = page.locator('.notification-toast', { hasText: /no turn started\. G1 waits: every todo has shipped/ }).first();
    await toast.waitFor({ timeout: 30_000 });
    await toast.locator('.monaco-button', { hasText: 'Add a Todo' }).waitFor({ timeout: 10_000 });
    if (await page.locator('.quick-input-widget .quick-input-title', { hasText: /Run Turn on G1/ }).isVisible())
      throw new Error('Run Turn asked which agent for a goal that cannot run');
    await wb.shot('turn-02-no-ready-work');
  });
}

/**
 * Run Turn with the real Claude Code (the devDependency) and its default command, nothing configured: the model is
 * the scripted server on 127.0.0.1, which calls Claude Code's shell tool with the prompt's loopx commands, and the
 * loopx they name is the extension's own launcher in its storage. Then the sample agent on the next todo.
 */
export async function runRealAgentTurnScenario(): Promise<void> {
  const workspace = mkdtempSync(join(HOME, 'ws-agent-'));
  const { kernel } = Kernel.init(workspace, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
  const goal = createGoal(kernel, { title: 'Ship the CSV importer', turnsPerWindow: 6 }).id;
  addTodo(kernel, { goalId: goal, title: 'Parse quoted fields', detail: 'quoted fixtures pass' });
  addTodo(kernel, { goalId: goal, title: 'Detect the delimiter' });
  kernel.close();
  mkdirSync(join(workspace, '.vscode'));
  writeFileSync(join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'loopx.defaultHost': 'claude' }, null, 2));
  const server = await startModelServer({ script: shipScript });
  // Claude Code offline: its own config folder (not the person's ~/.claude), the model on 127.0.0.1; on PATH.
  const bin = agentBin(REPO);
  const {
    HOME: _home,
    PATH: _path,
    HTTPS_PROXY: _a,
    HTTP_PROXY: _b,
    ALL_PROXY: _c,
    https_proxy: _d,
    http_proxy: _e,
    all_proxy: _f,
    ...env
  } = agentEnv(server, mkdtempSync(join(HOME, 'agent-home-')), bin);
  // claude on PATH, in front of what code-server runs with (Node 22 for VS Code 1.117).
  env.PATH = `${bin}:${profileEnv(REPO, PROFILE).PATH ?? process.env.PATH ?? ''}`;
  // The extension host keeps this PATH rather than a login shell's (which /etc/profile resets): code-server skips
  // resolving the shell's environment when it was started the way VS Code's CLI starts it.
  env.VSCODE_CLI = '1';
  try {
    await inWorkbench(
      workspace,
      'turn-claude-failure',
      async (wb) => {
        const { page } = wb;
        await wb.row('G1 Ship the CSV importer').waitFor({ timeout: 30_000 });
        await wb.openLoopx();
        step(3, "Run Turn → Claude Code, with its default command: the turn ships T1 through the extension's loopx");
        await wb.command('LoopX: Run Turn…');
        await wb.answer('Claude Code', /Run Turn on G1/);
        await page
          .locator('.notification-toast', { hasText: /turn R1 \(claude on claude, T1\) ended: shipped its todo; quota spent/ })
          .first()
          .waitFor({ timeout: 90_000 });
        await wb.row(/^\s*Shipped\s*1\s*$/).waitFor({ timeout: 10_000 });
        await wb.statusItem('G1 1/6').waitFor({ timeout: 10_000 });
        const calls = server.calls.map((c) => c.command);
        if (calls.length !== 3 || !server.calls.every((c) => c.output?.includes('"ok":true')))
          throw new Error(`Claude Code did not run the prompt's loopx commands: ${JSON.stringify(server.calls, null, 2)}`);
        if (!/^LOOPX_AGENT=claude '?\/.+\/bin\/loopx'? todo show T1 --json$/.test(calls[0] ?? ''))
          throw new Error(`the prompt's loopx is not the extension's launcher: ${calls[0]}`);
        await wb.shot('turn-03-claude-shipped');
        step(4, 'Run Turn → the sample agent (a demo): T2 gets evidence and is handed back, nothing shipped, nothing spent');
        await wb.command('LoopX: Run Turn…');
        await wb.answer('Sample agent', /Run Turn on G1/);
        await page
          .locator('.notification-toast', { hasText: /the sample agent's turn R2 on T2 ended: made progress; a demo spends no budget/ })
          .first()
          .waitFor({ timeout: 30_000 });
        await page
          .locator('.xterm-rows', { hasText: 'Done. A real agent (Codex, Claude Code) would have done the work' })
          .first()
          .waitFor({ timeout: 10_000 });
        // The demo spent nothing: the store has claude's one spend (the toast came after the finish was written).
        const store = Kernel.open(workspace, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
        const spends = Number(store.db.prepare('SELECT count(*) AS n FROM quota_spends').get()?.n);
        store.close();
        if (spends !== 1) throw new Error(`the sample turn spent a turn of the budget: ${spends} spends`);
        await wb.statusItem('G1 1/6').waitFor({ timeout: 10_000 });
        await wb.shot('turn-04-sample-agent');
      },
      env,
    );
  } finally {
    await server.close();
  }
}

import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Kernel } from '../../src/kernel/kernel';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { HOME, REPO, RESULTS, launchBrowser, startCodeServer } from './harness';
import { VSIX, installVsix } from './vsix';
import { Workbench } from './ui';

const step = (n: number, what: string) => console.log(`  vsix step ${n}: ${what}`);

/**
 * The extension as a user gets it: `npm run package`'s .vsix, installed with `--install-extension` (the flag `code`
 * and `cursor` take too) into a fresh extensions folder, not the checkout under development. It activates and opens
 * its store with the editor's node:sqlite (the .vsix has no native binary), shows its icon beside VS Code's own
 * walkthroughs, and a terminal's `loopx` (the launcher on the editor's runtime) writes to the same store. Then the
 * same .vsix in an extension host without node:sqlite: a sentence with what to do, and nothing starts.
 */
export async function runVsixScenario(): Promise<void> {
  step(1, "npm run package:vsix, then the install page's line into a fresh extensions folder");
  // docs/install.md's first line, as written (code-server takes the same flag as `code` and `cursor`), from the folder that holds
  // the .vsix; installVsix adds only the folder flags that keep this run apart from everything else.
  const page = readFileSync(join(REPO, 'docs', 'install.md'), 'utf8');
  const line = /^# Install\n[\s\S]*?```sh\n(.*)\n```/.exec(page)?.[1] ?? '';
  if (line !== 'code --install-extension loopx.vsix') throw new Error(`docs/install.md's first install step changed: ${line}`);
  const { extensions, extension } = installVsix(line.split(' ').slice(1), dirname(VSIX));
  const native = filesUnder(extension).filter((f) => /\.node$|(^|\/)node_modules\//.test(f));
  if (native.length) throw new Error(`the installed extension carries native code or dependencies: ${native.join(', ')}`);

  const workspace = mkdtempSync(join(HOME, 'ws-vsix-'));
  const { kernel } = Kernel.init(workspace, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
  const goal = createGoal(kernel, { title: 'Ship the CSV importer', turnsPerWindow: 6 }).id;
  addTodo(kernel, { goalId: goal, title: 'Parse quoted fields' });
  kernel.close();

  await inInstalledWorkbench(mkdtempSync(join(HOME, 'run-')), extensions, workspace, [], async (wb) => {
    step(2, 'activates on the workspace: the Goals view shows the store, opened with node:sqlite');
    await wb.page.locator('.part.sidebar .composite.title', { hasText: 'LoopX' }).first().waitFor({ timeout: 60_000 });
    await wb.row('G1 Ship the CSV importer').waitFor({ timeout: 30_000 });
    await wb.row(/T1 Parse quoted fields/).waitFor({ timeout: 30_000 });

    step(3, "a terminal's loopx (the launcher on the editor's runtime) writes to the same store");
    await wb.command('Terminal: Create New Terminal');
    const terminal = wb.page.locator('.terminal-wrapper.active .xterm, .terminal .xterm').first();
    await terminal.waitFor({ timeout: 30_000 });
    await terminal.click();
    await wb.page.keyboard.type('loopx doctor | grep -o "driver [a-z:-]*"; loopx todo add --goal G1 --title "Added from the terminal"');
    await wb.page.keyboard.press('Enter');
    await wb.row(/T2 Added from the terminal/).waitFor({ timeout: 30_000 });
    await wb.page.locator('.xterm-rows', { hasText: 'driver node:sqlite' }).first().waitFor({ timeout: 10_000 });
    await wb.shot('vsix-01-installed');

    step(4, "the Welcome page shows LoopX's walkthrough with its icon");
    await wb.command('Help: Welcome');
    const entry = wb.page.locator('.getting-started-category', { hasText: 'Get started with LoopX' }).first();
    // VS Code 1.105 opens its own first-run walkthrough the first time the Welcome page opens: back to the overview.
    const back = wb.page.locator('.gettingStartedContainer button.prev-button').first();
    await Promise.race([entry.waitFor({ timeout: 30_000 }), back.waitFor({ timeout: 30_000 })]);
    if (!(await entry.isVisible())) await back.click();
    await entry.waitFor({ timeout: 30_000 });
    const icon = entry.locator('img').first();
    await icon.waitFor({ timeout: 10_000 });
    const loaded = await icon.evaluate((img) => ({ src: (img as HTMLImageElement).src, width: (img as HTMLImageElement).naturalWidth }));
    if (!/icon\.png/.test(loaded.src) || loaded.width < 128)
      throw new Error(`the walkthrough's icon did not load: ${JSON.stringify(loaded)}`);
    await wb.shot('vsix-02-welcome-icon');
  });

  step(5, 'the same .vsix where the extension host lacks node:sqlite: a sentence, and nothing starts');
  const bare = mkdtempSync(join(HOME, 'run-'));
  const store = join(workspace, '.loopx', 'loopx.db');
  const before = { size: statSync(store).size, status: readFileSync(join(workspace, '.loopx', 'STATUS.md'), 'utf8') };
  await inInstalledWorkbench(bare, extensions, workspace, ['--no-experimental-sqlite'], async (wb) => {
    const toast = wb.page.locator('.notification-toast', { hasText: /LoopX cannot start in VS Code .*node:sqlite.*reload the window/ });
    await toast.first().waitFor({ timeout: 60_000 });
    await wb.openLoopx();
    await wb.page.locator('.welcome-view-content', { hasText: 'LoopX cannot start in this editor' }).first().waitFor({ timeout: 15_000 });
    await wb.shot('vsix-03-no-node-sqlite');
    // A LoopX command the palette offers (Initialize, without a store open) answers with the same sentences, not
    // "command not found", and creates nothing.
    await wb.command('Notifications: Clear All Notifications');
    await toast.first().waitFor({ state: 'hidden', timeout: 10_000 });
    await wb.command('LoopX: Initialize');
    await toast.first().waitFor({ timeout: 15_000 });
    const notFound = await wb.page.locator('.notification-toast', { hasText: /command .* not found/ }).count();
    if (notFound) throw new Error('a LoopX command ended in "command not found"');
  });
  const launcher = join(bare, 'ud', 'User', 'globalStorage', 'loopx.loopx', 'bin', 'loopx');
  if (existsSync(launcher)) throw new Error('the terminal launcher was written although LoopX could not start');
  if (statSync(store).size !== before.size || readFileSync(join(workspace, '.loopx', 'STATUS.md'), 'utf8') !== before.status)
    throw new Error('the store was touched although LoopX could not start');
}

/** code-server with the installed extension (no extension under development) on `workspace`. */
async function inInstalledWorkbench(
  run: string,
  extensions: string,
  workspace: string,
  nodeArgs: string[],
  body: (wb: Workbench) => Promise<void>,
): Promise<void> {
  mkdirSync(run, { recursive: true });
  const server = await startCodeServer({
    runDir: run,
    extensionsDir: extensions,
    env: { LOOPX_HUMAN: 'ada' },
    nodeArgs: nodeArgs.length ? nodeArgs : undefined,
  });
  const { context, page } = await launchBrowser();
  const wb = new Workbench(page);
  try {
    await page.goto(server.url(workspace));
    await wb.ready();
    await body(wb);
  } catch (error) {
    await wb.shot('vsix-failure').catch(() => undefined);
    console.error(`  code-server log (end):\n${server.log.slice(-3000)}\n  screenshots in ${RESULTS}`);
    throw error;
  } finally {
    await context.close();
    await server.stop();
  }
}

function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
  );
}

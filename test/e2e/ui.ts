import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { RESULTS, launchBrowser, startCodeServer } from './harness';
import { installedExtensions } from './vsix';

/** Small helpers that drive the VS Code workbench the way a person does (keyboard and mouse, no APIs). */
export class Workbench {
  constructor(readonly page: Page) {}

  async ready(): Promise<void> {
    await this.page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 90_000 });
  }

  /**
   * Shows the LoopX side bar. A workspace with a store brings it to the front by itself on its first open, and a
   * click on the icon of the container already shown would close it again: click only while it is not shown, and
   * look again afterwards (the extension may have shown it between the look and the click).
   */
  async openLoopx(): Promise<void> {
    const shown = this.page.locator('.part.sidebar .composite.title', { hasText: 'LoopX' }).first();
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await shown.isVisible()) return;
      // Near the icon's top-left corner: its badge (a gate waiting) covers the bottom-right and takes the click on 1.105.
      await this.page
        .locator('.part.activitybar [aria-label^="LoopX"]')
        .first()
        .click({ position: { x: 6, y: 6 } });
      await shown.waitFor({ timeout: 3_000 }).catch(() => undefined);
    }
    await shown.waitFor({ timeout: 30_000 });
  }

  /**
   * Runs a command from the palette by its title. When the palette does not come up, or closes before its row is
   * clicked, it is opened again (three tries), as a person would: in loaded runs the palette once never opened and once
   * closed between opening and typing (session 34's CIs, the ui part's step 9, the walkthrough just opened: something
   * took the focus, and a quick input closes when it loses it).
   */
  async command(title: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget input');
    // Click the row whose label is exactly the title: fuzzy matching may rank a longer command first.
    const exact = new RegExp(`^\\s*${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
    const row = this.page
      .locator('.quick-input-list .monaco-list-row')
      .filter({ has: this.page.locator('.label-name', { hasText: exact }) })
      .first();
    for (let attempt = 1; ; attempt++) {
      try {
        if (attempt === 1 || !(await input.isVisible())) await this.page.keyboard.press('F1');
        await input.waitFor({ state: 'visible', timeout: 10_000 });
        await input.fill(`>${title}`, { timeout: 10_000 });
        await row.waitFor({ timeout: 30_000 });
        await row.click({ timeout: 10_000 });
        return;
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
  }

  /** Answers the open input box (or quick pick filter) and confirms. */
  async answer(text: string, expectTitle?: RegExp): Promise<void> {
    const widget = this.page.locator('.quick-input-widget');
    await widget.waitFor({ state: 'visible', timeout: 30_000 });
    if (expectTitle) await widget.locator('.quick-input-title', { hasText: expectTitle }).waitFor({ timeout: 30_000 });
    const input = widget.locator('input');
    await input.fill(text);
    await this.page.keyboard.press('Enter');
    await this.page.waitForTimeout(150);
  }

  /** Picks a colour theme through "Preferences: Color Theme", as a person would (the dev host ignores user settings). */
  async theme(label: string): Promise<void> {
    await this.command('Preferences: Color Theme');
    const input = this.page.locator('.quick-input-widget input');
    await input.fill(label);
    const row = this.page
      .locator('.quick-input-list .monaco-list-row')
      .filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`^\\s*${label}\\s*$`) }) })
      .first();
    await row.waitFor({ timeout: 30_000 });
    await row.click();
    await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 30_000 });
  }

  row(text: string | RegExp): Locator {
    return this.page.locator('.monaco-list-row', { hasText: text }).first();
  }

  pane(title: string): Locator {
    return this.page.locator('.pane', { has: this.page.locator('.pane-header', { hasText: title }) }).first();
  }

  statusItem(text: string | RegExp): Locator {
    return this.page.locator('.part.statusbar .statusbar-item', { hasText: text }).first();
  }

  async shot(name: string): Promise<string> {
    const path = join(RESULTS, `${name}.png`);
    await this.page.screenshot({ path });
    return path;
  }
}

/**
 * One scenario's session: code-server with the extension installed from this run's .vsix (vsix.ts), a browser on the
 * workspace, the workbench ready; a failure screenshot on error; everything stopped afterwards.
 */
export async function inWorkbench(
  workspace: string,
  failureShot: string,
  body: (wb: Workbench) => Promise<void>,
  /** More environment for code-server, and so for its terminals (the real agent CLIs' offline set-up). */
  env: Record<string, string> = {},
): Promise<void> {
  const server = await startCodeServer({ env: { LOOPX_HUMAN: 'ada', ...env }, extensionsDir: installedExtensions() });
  const { context, page } = await launchBrowser();
  const wb = new Workbench(page);
  try {
    console.log(`  opening VS Code on ${workspace.split('/').pop()} (under load this takes a minute or more)…`);
    const started = Date.now();
    await page.goto(server.url(workspace));
    await wb.ready();
    console.log(`  VS Code is up in ${Math.round((Date.now() - started) / 1000)} s`);
    await body(wb);
  } catch (error) {
    await wb.shot(failureShot).catch(() => undefined);
    throw error;
  } finally {
    await context.close();
    await server.stop();
  }
}

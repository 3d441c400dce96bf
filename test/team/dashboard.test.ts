import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, describe, expect, test } from 'vitest';
import { LOOPX, cleanEnv, loopx, startGoal } from '../cli/harness';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty } from '../cli/pty';
import { POSTGRES_MISSING } from '../support/postgres';
import { install, teamSuite } from './teamKit';

/**
 * `loopx dashboard` in a real browser (playwright-core driving Debian's chromium): three projects of one person, one
 * of them a team store on a real PostgreSQL; what waits on the person across them, oldest first; writes from agents'
 * terminals (and the team store's other machines) showing up without a reload; hostile titles only text; the secret
 * required; a project listed while it runs; a folder deleted under it.
 */
const CHROMIUM = process.env.LOOPX_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_MISSING = `no Chromium at ${CHROMIUM} (Debian: apt-get install chromium; or set LOOPX_CHROMIUM): the dashboard's browser test did not run`;
if (!existsSync(CHROMIUM)) {
  if (process.env.CI) throw new Error(`${CHROMIUM_MISSING}. CI must install it (.ci/run).`);
  test.skip(CHROMIUM_MISSING, () => {});
}
if (!PTY_AVAILABLE) test.skip(PTY_SKIP_REASON, () => {});

const suite = teamSuite('dashboard');
const children: ChildProcess[] = [];
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
  for (const child of children) child.kill('SIGTERM');
});

describe.skipIf(!install || !PTY_AVAILABLE || !existsSync(CHROMIUM))(
  `loopx dashboard (${install ? 'PostgreSQL' : POSTGRES_MISSING})`,
  () => {
    test('three projects, one a team store: the attention list, live writes, hostile titles, the secret, a new and a gone project, the shell offline', async () => {
      const env = { LOOPX_CONFIG_DIR: join(suite.work, 'person') };
      const folder = (name: string) => {
        const root = join(suite.work, name);
        mkdirSync(root, { recursive: true });
        expect(loopx(['init'], { cwd: root, env }).code).toBe(0);
        loopx(['goal', 'create', '--title', `${name} goal`], { cwd: root, env });
        startGoal(root);
        loopx(['todo', 'add', '--goal', 'G1', '--title', `${name} first`], { cwd: root, env });
        return root;
      };
      const agent = (root: string, args: string[]) => {
        const run = loopx([...args, '--json'], { cwd: root, env: { ...env, LOOPX_AGENT: 'codex' } });
        expect(run.code, run.stdout + run.stderr).toBe(0);
      };
      const alpha = folder('alpha');
      const beta = folder('beta');
      const gamma = folder('gamma');
      agent(alpha, ['gate', 'ask', '--goal', 'G1', '--question', 'Ship alpha on Friday?']);
      agent(beta, ['todo', 'claim', 'T1']);
      agent(beta, ['todo', 'block', 'T1', '--reason', '<img src=x onerror="window.__pwned=1"> needs the key']);
      // gamma moves into a team store: from then on its rows come from PostgreSQL through this machine's replica.
      const url = suite.cluster.url(await suite.cluster.createDatabase('dashboard'));
      for (const verb of ['init', 'push']) {
        const run = loopxTty(['team', verb, '--database', url, '--json'], '', { cwd: gamma, env });
        expect(run.code, run.stdout + run.stderr).toBe(0);
      }
      agent(gamma, ['gate', 'ask', '--goal', 'G1', '--question', '<script>window.__pwned=2</script> Merge gamma?']);

      const server = spawn(process.execPath, [LOOPX, 'dashboard', '--no-open', '--json'], { env: cleanEnv(env), cwd: suite.work });
      children.push(server);
      const started = await new Promise<{ url: string; openUrl: string; projects: number }>((resolve, reject) => {
        let out = '';
        server.stdout!.on('data', (c) => {
          out += c;
          if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!) as { url: string; openUrl: string; projects: number });
        });
        server.on('exit', (code) => reject(new Error(`loopx dashboard exited with ${code}`)));
      });
      expect(started.projects).toBe(3);
      expect(started.openUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#secret=[\w-]{43}$/);

      // The push key comes from web-push, which the bundle loads by path on first use (dist/webPush.js).
      const secret = started.openUrl.split('#secret=')[1];
      const key = await fetch(`${started.url}api/push/key`, { headers: { Authorization: `Bearer ${secret}` } });
      expect(key.status).toBe(200);
      expect(((await key.json()) as { publicKey: string }).publicKey).toMatch(/^[\w-]{87}$/);

      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      // Without the secret (the address without its fragment): the page says what to open, and shows nothing of the stores.
      const stranger = await (await browser.newContext()).newPage();
      await stranger.goto(started.url);
      await stranger.getByText('This page needs the address loopx dashboard printed').waitFor();
      expect(await stranger.locator('.item').count()).toBe(0);

      const page: Page = await (await browser.newContext()).newPage();
      await page.goto(started.openUrl);
      await page.waitForFunction(() => document.querySelectorAll('.item').length === 3);
      expect(page.url()).toBe(started.url); // the secret left the address bar
      const rows = async () =>
        page
          .locator('.item')
          .evaluateAll((items) =>
            items.map((i) => [i.getAttribute('data-kind'), i.querySelector('.title')?.textContent, i.querySelector('.where')?.textContent]),
          );
      expect(await rows()).toEqual([
        ['gate', 'Ship alpha on Friday?', 'alpha · G1'],
        ['blocked', 'beta first', 'beta · T1'],
        ['gate', '<script>window.__pwned=2</script> Merge gamma?', 'gamma · G1'],
      ]);
      // Hostile text is text: no script ran, no element was made from it.
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.locator('.item img, .item script').count()).toBe(0);
      expect(await page.locator('.item.blocked .detail').textContent()).toBe('<img src=x onerror="window.__pwned=1"> needs the key');
      expect(await page.locator('.item.gate .command').first().textContent()).toMatch(/^loopx gate approve Q1 --root '.*alpha'$/);
      // A decision is a link to where a person decides it (VS Code's modal), never a button here.
      expect(await page.locator('.item.gate a.decide').first().getAttribute('href')).toMatch(
        /^vscode:\/\/loopx\.loopx\/decide\?root=.*alpha&kind=gate&id=Q1$/,
      );
      expect(await page.locator('.item button:not(.copy), form').count()).toBe(0);
      await expect
        .poll(async () =>
          (await page.locator('article.project[data-key] .facts').allTextContents()).some((t) => /^team store · last change /.test(t)),
        )
        .toBe(true);

      // A phone's width: nothing wider than the screen. A keyboard alone reaches the decide links and the copy buttons.
      const phone = await (await browser.newContext({ viewport: { width: 390, height: 800 }, colorScheme: 'dark' })).newPage();
      await phone.goto(started.openUrl);
      await phone.waitForFunction(() => document.querySelectorAll('.item').length === 3);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const reached = new Set<string>();
      for (let i = 0; i < 12; i++) {
        await phone.keyboard.press('Tab');
        reached.add(
          await phone.evaluate(() =>
            document.activeElement ? `${document.activeElement.tagName}.${document.activeElement.className}` : '',
          ),
        );
      }
      expect([...reached]).toEqual(expect.arrayContaining(['A.decide', 'BUTTON.copy', 'BUTTON.notify']));
      await phone.context().close();

      // Writes from agents' terminals, local and team, reach the open page without a reload.
      agent(beta, ['gate', 'ask', '--goal', 'G1', '--question', 'Publish beta docs?']);
      await page.locator('.item', { hasText: 'Publish beta docs?' }).waitFor();
      agent(gamma, ['todo', 'claim', 'T1']);
      agent(gamma, ['todo', 'block', 'T1', '--reason', 'waits on the team server upgrade']);
      await page.locator('.item', { hasText: 'waits on the team server upgrade' }).waitFor();

      // A project initialised while it runs joins; a folder deleted under it is said, and the others still serve.
      folder('delta');
      await page.locator('article.project h2', { hasText: 'delta' }).waitFor();
      rmSync(alpha, { recursive: true, force: true });
      await page.locator('article.project.missing', { hasText: 'its folder is gone (moved or deleted)' }).waitFor();
      expect((await rows()).map((r) => r[1])).not.toContain('Ship alpha on Friday?');
      agent(beta, ['gate', 'ask', '--goal', 'G1', '--question', 'After alpha went?']); // the others still serve, live
      await page.locator('.item', { hasText: 'After alpha went?' }).waitFor();

      // An installed page opens when the server is not running: its kept shell says so (and keeps trying).
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGINT');
      await exited;
      await page.reload();
      await page.locator('.connection.stopped', { hasText: 'The loopx dashboard is not running' }).waitFor();
    }, 180_000);
  },
);

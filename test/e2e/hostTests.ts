import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import { HOME, REPO, RESULTS, launchBrowser, startCodeServer } from './harness';

/**
 * Runs the Mocha suites inside code-server's extension host (the way VS Code's own browser integration tests do):
 * the workbench is opened with a `payload` naming the extension under development and the tests entry, and the
 * host reports its exit code through `codeAutomationExit`.
 */
export async function runHostTests(): Promise<number> {
  const workspace = mkdtempSync(join(HOME, 'ws-host-'));
  const server = await startCodeServer({ env: { LOOPX_HUMAN: 'ada', LOOPX_E2E_RESULTS: RESULTS } });
  const { context, page } = await launchBrowser();
  try {
    let finish: (code: number) => void = () => {};
    const exited = new Promise<number>((done) => (finish = done));
    await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => console.log(`  [host ${type}]`, format(...(args ?? []))));
    await page.exposeFunction('codeAutomationExit', (code: number) => finish(code));
    const started = Date.now();
    await page.goto(server.url(workspace, server.devPayload(join(REPO, 'dist', 'test', 'extension', 'index.js'))));
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise<number>((done) => (timer = setTimeout(() => done(-1), 240_000)))]);
    clearTimeout(timer);
    console.log(`extension-host suites: exit ${code === -1 ? 'TIMEOUT' : code} after ${Date.now() - started} ms`);
    return code;
  } finally {
    await context.close();
    await server.stop();
  }
}

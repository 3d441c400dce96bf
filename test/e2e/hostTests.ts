import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import { HOME, REPO, RESULTS, launchBrowser, startCodeServer } from './harness';
import { seedMultiRootWorkspace } from './multiRootWorkspace';

/**
 * Runs the Mocha suites inside code-server's extension host (the way VS Code's own browser integration tests do):
 * the workbench is opened with a `payload` naming the extension under development and the tests entry, and the
 * host reports its exit code through `codeAutomationExit`.
 */
export async function runHostTests(): Promise<number> {
  const single = await runSuites('extension-host suites', mkdtempSync(join(HOME, 'ws-host-')), 'index.js');
  if (single !== 0) return single;
  // The same extension in a multi-root workspace: two folders with a store each, one without.
  const { file } = seedMultiRootWorkspace();
  return runSuites('multi-root suite', file, 'multiRoot.js');
}

async function runSuites(name: string, workspace: string, entry: string): Promise<number> {
  const server = await startCodeServer({ env: { LOOPX_HUMAN: 'ada', LOOPX_E2E_RESULTS: RESULTS }, development: true });
  const { context, page } = await launchBrowser();
  try {
    let finish: (code: number) => void = () => {};
    const exited = new Promise<number>((done) => (finish = done));
    await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) =>
      console.log(`  [host ${type}]`, format(...(args ?? []))),
    );
    await page.exposeFunction('codeAutomationExit', (code: number) => finish(code));
    const started = Date.now();
    await page.goto(server.url(workspace, server.devPayload(join(REPO, 'dist', 'test', 'extension', entry))));
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise<number>((done) => (timer = setTimeout(() => done(-1), 240_000)))]);
    clearTimeout(timer);
    console.log(`${name}: exit ${code === -1 ? 'TIMEOUT' : code} after ${Date.now() - started} ms`);
    return code;
  } finally {
    await context.close();
    await server.stop();
  }
}

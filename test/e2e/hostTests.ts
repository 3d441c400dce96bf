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
  // The same extension in a multi-root workspace: two folders with a store each, one without; opened from a workspace
  // file inside one of them, as a repository's own is.
  const { file } = seedMultiRootWorkspace({ inAlpha: true });
  return runSuites('multi-root suite', file, 'multiRoot.js');
}

async function runSuites(name: string, workspace: string, entry: string): Promise<number> {
  const server = await startCodeServer({ env: { LOOPX_HUMAN: 'ada', LOOPX_E2E_RESULTS: RESULTS }, development: true });
  const { context, page } = await launchBrowser();
  try {
    let finish: (code: number) => void = () => {};
    const exited = new Promise<number>((done) => (finish = done));
    // The tests' own output (Mocha's report) as it comes; VS Code's errors and warnings (an offline marketplace, a
    // webview disposed as a test closes it) are kept and printed only when a test fails: a passing run looks passing.
    const held: string[] = [];
    let lastOutput = Date.now();
    await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => {
      const line = `  [host ${type}] ${format(...(args ?? []))}`;
      if (type === 'error' || type === 'warn') held.push(line);
      else {
        lastOutput = Date.now();
        console.log(line);
      }
    });
    await page.exposeFunction('codeAutomationExit', (code: number) => finish(code));
    const started = Date.now();
    console.log(`${name}: opening VS Code with the suites (under load this takes a minute or more)…`);
    await page.goto(server.url(workspace, server.devPayload(join(REPO, 'dist', 'test', 'extension', entry))));
    // Never silent for long: a quiet stretch says it is still going and since when.
    const heartbeat = setInterval(() => {
      const quiet = Math.round((Date.now() - lastOutput) / 1000);
      if (quiet >= 15)
        console.log(`  … ${name} still running: ${Math.round((Date.now() - started) / 1000)} s, the last output ${quiet} s ago`);
    }, 15_000);
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise<number>((done) => (timer = setTimeout(() => done(-1), 900_000)))]);
    clearTimeout(timer);
    clearInterval(heartbeat);
    if (code !== 0 && held.length) console.log(`${name}: VS Code's errors and warnings during the run:\n${held.join('\n')}`);
    else if (held.length)
      console.log(`  (${held.length} error and warning lines of VS Code's own were held back; they are printed when a test fails)`);
    console.log(`${name}: exit ${code === -1 ? 'TIMEOUT' : code} after ${Date.now() - started} ms`);
    return code;
  } finally {
    await context.close();
    await server.stop();
  }
}

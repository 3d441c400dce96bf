import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { HOME, RESULTS } from './harness';
import { runHostTests } from './hostTests';
import { runScenario } from './scenario';
import { runBoardScenario } from './boardScenario';
import { runTurnScenario } from './turnScenario';

/** `npm run test:e2e`: the extension in a real VS Code (code-server 4.100.3), offline. */
async function main(): Promise<void> {
  mkdirSync(HOME, { recursive: true });
  rmSync(RESULTS, { recursive: true, force: true });
  mkdirSync(RESULTS, { recursive: true });
  const only = process.argv[2];
  let failed = 0;
  if (!only || only === 'host') {
    const code = await runHostTests();
    if (code !== 0) failed++;
  }
  if (!only || only === 'ui') {
    try {
      await runScenario();
    } catch (error) {
      console.error('UI scenario FAILED:', error);
      failed++;
    }
  }
  if (!only || only === 'board') {
    try {
      await runBoardScenario();
    } catch (error) {
      console.error('board scenario FAILED:', error);
      failed++;
    }
  }
  if (!only || only === 'turn') {
    try {
      await runTurnScenario();
    } catch (error) {
      console.error('turn scenario FAILED:', error);
      failed++;
    }
  }
  const figures = join(RESULTS, 'host-figures.json');
  if (existsSync(figures)) console.log('figures measured in the extension host:', readFileSync(figures, 'utf8').replace(/\s+/g, ' '));
  console.log(failed ? `e2e: ${failed} part(s) failed; screenshots in test-results/` : 'e2e: all green; screenshots in test-results/');
  // Exit now: a stray handle (a browser pipe, a timer) must not keep CI waiting after the verdict.
  process.exit(failed ? 1 : 0);
}

void main();

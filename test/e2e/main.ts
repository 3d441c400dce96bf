import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HOME, PROFILE, REPO, RESULTS } from './harness';
import { DEFAULT_PROFILE, ensureCodeServer } from './profiles';
import { runHostTests } from './hostTests';
import { runScenario } from './scenario';
import { runMultiRootScenario } from './multiRootScenario';
import { runBoardScenario } from './boardScenario';
import { runRealAgentTurnScenario, runTurnScenario } from './turnScenario';
import { runGoalFileScenario } from './goalFileScenario';
import { runStoryScenario } from './storyScenario';
import { runVsixScenario } from './vsixScenario';
import { runWorktreeScenario } from './worktreeScenario';
import { runTeamScenario } from './teamScenario';

/**
 * Scratch folders of earlier runs (code-server user data, browser profiles, workspaces): none is reused. Only those
 * an hour old: a run going on beside this one (another profile, another checkout's e2e) keeps its own.
 */
function removeScratch(): void {
  const before = Date.now() - 3_600_000;
  for (const name of readdirSync(HOME)) {
    if (!/^(run|chrome|ws-[a-z]+)-[A-Za-z0-9]{6}$/.test(name)) continue;
    const path = join(HOME, name);
    if (statSync(path).mtimeMs < before) rmSync(path, { recursive: true, force: true });
  }
}

/**
 * What the floor build (every build but the newest) runs when no part is named: the parts whose outcome can differ
 * between builds. The extension-host suites exercise every VS Code API the extension calls, on that build's Node and
 * node:sqlite; the .vsix part installs the package there. The browser scenarios drive the workbench through the same
 * Debian chromium on every build, and the webviews are the same code, so they run on the newest build only (about four
 * minutes of CI saved). A part named on the command line runs on any build.
 */
const ON_EVERY_BUILD = new Set(['host', 'vsix']);

/** `npm run test:e2e`: the extension in a real VS Code (the code-server build LOOPX_E2E_PROFILE names), offline. */
async function main(): Promise<void> {
  mkdirSync(HOME, { recursive: true });
  removeScratch();
  await ensureCodeServer(REPO, HOME, PROFILE);
  // `--install`: only the install (npm test runs it in the background while the unit suites run).
  if (process.argv[2] === '--install') process.exit(0);
  rmSync(RESULTS, { recursive: true, force: true });
  mkdirSync(RESULTS, { recursive: true });
  console.log(
    `e2e on ${PROFILE.name} (code-server ${PROFILE.codeServerVersion}; the extension should open its store with ${PROFILE.driver})`,
  );
  const parts: [name: string, run: () => Promise<void>][] = [
    [
      'host',
      async () => {
        const code = await runHostTests();
        if (code !== 0) throw new Error(`the extension-host suites exited with ${code}`);
      },
    ],
    [
      'ui',
      async () => {
        await runScenario();
        await runMultiRootScenario();
      },
    ],
    ['board', runBoardScenario],
    [
      'turn',
      async () => {
        await runTurnScenario();
        await runRealAgentTurnScenario();
      },
    ],
    ['goalfile', runGoalFileScenario],
    ['story', runStoryScenario],
    ['worktree', runWorktreeScenario],
    // A real PostgreSQL stopped and started under the window (team mode); a browser part, on the newest build only.
    ['team', runTeamScenario],
    ['vsix', runVsixScenario],
  ];
  const only = process.argv[2];
  if (only && !parts.some(([name]) => name === only)) {
    console.error(`unknown e2e part "${only}"; one of: ${parts.map(([name]) => name).join(', ')}`);
    process.exit(2);
  }
  let failed = 0;
  const floor = PROFILE.name !== DEFAULT_PROFILE;
  for (const [name, run] of parts) {
    if (only && only !== name) continue;
    if (!only && floor && !ON_EVERY_BUILD.has(name)) {
      console.log(`e2e part ${name}: runs on ${DEFAULT_PROFILE} only (a browser scenario; the host suites ran here)`);
      continue;
    }
    // Each part's time, so what a part adds to npm test is seen in every run (the .vsix is packaged by the first).
    const started = Date.now();
    try {
      await run();
    } catch (error) {
      console.error(`${name} FAILED:`, error);
      failed++;
    }
    console.log(`e2e part ${name}: ${Math.round((Date.now() - started) / 1000)} s`);
  }
  const figures = join(RESULTS, 'host-figures.json');
  if (existsSync(figures)) console.log('figures measured in the extension host:', readFileSync(figures, 'utf8').replace(/\s+/g, ' '));
  const where = RESULTS.slice(REPO.length + 1);
  console.log(
    failed
      ? `e2e ${PROFILE.name}: ${failed} part(s) failed; screenshots in ${where}/`
      : `e2e ${PROFILE.name}: all green; screenshots in ${where}/`,
  );
  // Exit now: a stray handle (a browser pipe, a timer) must not keep CI waiting after the verdict.
  process.exit(failed ? 1 : 0);
}

void main();

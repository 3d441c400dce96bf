import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
// @ts-expect-error: a plain .mjs script (nodeRelease.mjs uses it too), without type declarations
import { setCaAside } from '../../scripts/registryEnv.mjs';
import { HOME, PROFILE, REPO, RESULTS } from './harness';
import { DEFAULT_PROFILE, PROFILES, ensureCodeServer } from './profiles';
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
 * Each part runs on one build when no part is named (issue 39: parts run once, not per build). The floor build (every
 * build but the newest: engines.vscode, and the VS Code Cursor reports) runs the extension-host suites, which call
 * every VS Code API the extension uses, on the oldest API and Node (22) it promises; and the .vsix part, which installs
 * the package there, as its engines range must allow. The newest build runs the browser scenarios, which start the
 * extension on its Node 24 and drive every view, the board, the story, turns and team mode through the workbench. Run
 * on both builds, the host suites and the .vsix cost about five minutes of CI on this machine. A part named on the
 * command line runs on any build.
 */
const ON_THE_FLOOR = new Set(['host', 'vsix']);
const FLOOR_PROFILES = Object.keys(PROFILES).filter((name) => name !== DEFAULT_PROFILE);

/** `npm run test:e2e`: the extension in a real VS Code (the code-server build LOOPX_E2E_PROFILE names), offline. */
async function main(): Promise<void> {
  mkdirSync(HOME, { recursive: true });
  removeScratch();
  await ensureCodeServer(REPO, HOME, PROFILE);
  // `--install`: only the install (npm test runs it in the background while the unit suites run).
  if (process.argv[2] === '--install') process.exit(0);
  // From here nothing reaches npm's registry: code-server, its extension host and every loopx, shell and agent they
  // start do without the machine's CA bundle, which Node 20 and 22 would parse at each start (scripts/registryEnv.mjs).
  setCaAside();
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
    if (!only && floor !== ON_THE_FLOOR.has(name)) {
      console.log(
        floor
          ? `e2e part ${name}: runs on ${DEFAULT_PROFILE} only (a browser scenario)`
          : `e2e part ${name}: runs on the floor build only (${FLOOR_PROFILES.join(', ')}); name it to run it here`,
      );
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

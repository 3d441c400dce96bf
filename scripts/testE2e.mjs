// `npm run test:e2e [-- PART] [-- --profile NAME]`: builds the extension and the test bundles, then runs the
// extension-host suites and the Playwright scenarios in real VS Code builds, offline: VS Code 1.105 on Node 22 (the
// floor, engines.vscode), then VS Code 1.139 on Node 24 (the newest; every VS Code since 1.123 runs Node 24); the
// extension opens its store with node:sqlite in both. Each pinned code-server installs into .cache/e2e on first use.
// PART is one of host, ui, board, turn, goalfile, story, worktree, team, vsix.
import { execFileSync, spawnSync } from 'node:child_process';
import { E2E_PROFILES } from './e2eProfiles.mjs';

const args = process.argv.slice(2);
const at = args.indexOf('--profile');
const profiles = at >= 0 ? [args[at + 1]] : E2E_PROFILES;
const suites = at >= 0 ? args.filter((_, i) => i !== at && i !== at + 1) : args;
if (profiles.some((p) => !p)) {
  console.error('usage: npm run test:e2e -- [host|ui|board|turn|goalfile|story|worktree|team|vsix] [--profile vscode-1.105|vscode-1.139]');
  process.exit(2);
}

// `npm test` has built every bundle, the e2e ones included, before its two lanes started (scripts/testAll.mjs): a build
// here would rewrite dist/ under the process suites running beside this.
if (!process.env.LOOPX_TEST_BUILT) execFileSync(process.execPath, ['esbuild.mjs', '--e2e'], { stdio: 'inherit' });
let failed = 0;
for (const profile of profiles) {
  const started = Date.now();
  const result = spawnSync(process.execPath, ['dist/test/e2e/main.js', ...suites], {
    stdio: 'inherit',
    env: { ...process.env, LOOPX_E2E_PROFILE: profile },
  });
  console.log(`e2e ${profile}: exit ${result.status} in ${Math.round((Date.now() - started) / 1000)} s`);
  if (result.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);

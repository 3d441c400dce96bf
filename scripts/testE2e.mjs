// `npm run test:e2e [-- SUITE] [-- --profile NAME]`: builds the extension and the test bundles, then runs the
// extension-host suites and the Playwright scenarios in real VS Code builds, offline: first VS Code 1.100 on
// Node 20 (better-sqlite3), then VS Code 1.117 on Node 22 (node:sqlite, the desktop path). Each pinned
// code-server installs into .cache/e2e on first use. SUITE is one of host, ui, board, turn, goalfile, story.
import { execFileSync, spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const at = args.indexOf('--profile');
const profiles = at >= 0 ? [args[at + 1]] : ['vscode-1.100', 'vscode-1.117'];
const suites = at >= 0 ? args.filter((_, i) => i !== at && i !== at + 1) : args;
if (profiles.some((p) => !p)) {
  console.error('usage: npm run test:e2e -- [host|ui|board|turn|goalfile|story] [--profile vscode-1.100|vscode-1.117]');
  process.exit(2);
}

execFileSync(process.execPath, ['esbuild.mjs', '--e2e'], { stdio: 'inherit' });
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

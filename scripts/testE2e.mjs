// `npm run test:e2e`: installs the pinned code-server on first use, builds the extension and the test bundles,
// then runs the extension-host suites and the Playwright UI scenario in a real VS Code, offline.
import { execFileSync, spawnSync } from 'node:child_process';
import { ensureCodeServer } from './e2e/install.mjs';

ensureCodeServer();
execFileSync(process.execPath, ['esbuild.mjs', '--e2e'], { stdio: 'inherit' });
const result = spawnSync(process.execPath, ['dist/test/e2e/main.js', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);

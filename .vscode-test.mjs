// For desktop machines that can download VS Code: `npx @vscode/test-electron` style runs of the same
// extension-host suites that `npm run test:e2e` runs in code-server here (this machine cannot download VS Code).
// Build the suites first: node esbuild.mjs --e2e
import { runTests } from '@vscode/test-electron';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname);
await runTests({
  extensionDevelopmentPath: root,
  extensionTestsPath: join(root, 'dist', 'test', 'extension', 'index.js'),
  launchArgs: [mkdtempSync(join(tmpdir(), 'loopx-ws-')), '--disable-extensions'],
});

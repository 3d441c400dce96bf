import { execFileSync } from 'node:child_process';

/** Black-box tests spawn bin/loopx: build the bundles once, so they never run a stale dist/. */
export function setup(): void {
  // `npm test` built them (with the fixture) before its lanes started; a rebuild would rewrite dist/ under the e2e
  // running beside the vitest run (scripts/testAll.mjs).
  if (process.env.LOOPX_TEST_BUILT) return;
  execFileSync(process.execPath, ['esbuild.mjs', '--with-test-fixtures'], { stdio: 'inherit' });
}

import { execFileSync } from 'node:child_process';

/** Black-box tests spawn bin/loopx: build the bundles once, so they never run a stale dist/. */
export function setup(): void {
  execFileSync(process.execPath, ['esbuild.mjs', '--with-test-fixtures'], { stdio: 'inherit' });
}

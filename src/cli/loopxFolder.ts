import { join } from 'node:path';

declare const __LOOPX_ROOT_FROM_BUNDLE__: string | undefined;

/**
 * The folder this loopx runs from (bin/, dist/, package.json): from any of its bundles (esbuild.mjs defines the way up:
 * `..` from dist/cli.js, `../..` from dist/agent/ and dist/command/), or the checkout when run from source (the tests).
 */
export function loopxFolder(): string {
  return typeof __LOOPX_ROOT_FROM_BUNDLE__ === 'string' ? join(__dirname, __LOOPX_ROOT_FROM_BUNDLE__) : join(__dirname, '..', '..');
}

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type Pg from 'pg';

declare const __LOOPX_PG_BUNDLE__: string | undefined;

/**
 * Where `pg` is loaded from: the bundles' own copy (dist/pg.js, pure JavaScript, pg-native left out; the CLI package
 * and the .vsix carry no node_modules), else the checkout's node_modules (vitest, the bench). Loaded by path, never
 * imported, so no bundle inlines a second copy and a workspace that is not in team mode never loads it.
 */
export function pgModulePath(): string {
  if (typeof __LOOPX_PG_BUNDLE__ === 'string') {
    const bundled = join(__dirname, __LOOPX_PG_BUNDLE__);
    if (existsSync(bundled)) return bundled;
  }
  return createRequire(__filename).resolve('pg');
}

/** The asynchronous client library, for the live listener (teamLive.ts); the write path's worker loads the same file. */
export function loadPg(): typeof Pg {
  return createRequire(__filename)(pgModulePath()) as typeof Pg;
}

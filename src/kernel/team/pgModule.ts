import { existsSync } from 'node:fs';
import type { createRequire as CreateRequire } from 'node:module';
import { join } from 'node:path';
import type Pg from 'pg';

/** node:module where it is used: every agent call's bundle carries this file, only team mode loads pg. */
const createRequire: typeof CreateRequire = (from) =>
  (process.getBuiltinModule('node:module') as { createRequire: typeof CreateRequire }).createRequire(from);

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

/** A client's socket keeps no process alive (as SQLite's watch is not persistent): pg has no option for it. */
export function unrefClient(client: Pg.Client): void {
  (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
}

/**
 * The asynchronous client library, for the live listener (teamLive.ts) and a one-shot read's catch-up (teamEngine.ts);
 * the write path's worker loads the same file. pg asks at load whether it runs in a Cloudflare Worker, which without a
 * `navigator` (Node 20) loads Node's whole fetch implementation (pgWorker.ts, PG_LOAD_PRELUDE): it is lent the answer
 * Node 21+ gives for the load, and nothing else sees it. Only where there is no `navigator` at all: Node 21+ has one,
 * and VS Code's extension host defines a getter of its own (no setter; reading it reports an error), which must be
 * neither read nor replaced here (the e2e team part found it: the window's listener never started).
 */
export function loadPg(): typeof Pg {
  const lent = !('navigator' in globalThis);
  if (lent)
    Object.defineProperty(globalThis, 'navigator', { value: { userAgent: `Node.js/${process.versions.node}` }, configurable: true });
  try {
    return createRequire(__filename)(pgModulePath()) as typeof Pg;
  } finally {
    if (lent) delete (globalThis as { navigator?: unknown }).navigator;
  }
}

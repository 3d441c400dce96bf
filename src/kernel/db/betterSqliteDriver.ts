import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { createRequire as CreateRequire } from 'node:module';
import { type SqliteDb, type Statement, StatementCache } from './sqliteDb';

type BetterStatement = {
  run(...p: unknown[]): { changes: number };
  get(...p: unknown[]): unknown;
  all(...p: unknown[]): unknown[];
};
type BetterDatabase = { exec(sql: string): void; prepare(sql: string): BetterStatement; close(): void; open: boolean };
type BetterConstructor = new (
  path: string,
  options?: { timeout?: number; readonly?: boolean; fileMustExist?: boolean; nativeBinding?: unknown },
) => BetterDatabase;

/**
 * In the CLI's bundles, which carry better-sqlite3's JavaScript inside them, the way from the bundle's folder to
 * loopx's own (esbuild's define: `..` from dist/, `../../k` from dist/agent/); elsewhere undefined.
 */
declare const __LOOPX_ROOT_FROM_BUNDLE__: string | undefined;

/**
 * better-sqlite3, loaded only when this driver is chosen. The CLI's bundles carry its JavaScript and open its
 * native addon straight from the file: finding both through Node's module resolution and the `bindings` package's
 * search costs Node 20 several milliseconds on every call. Elsewhere (VS Code, the tests) Node resolves the package.
 */
let loaded: { Database: BetterConstructor; nativeBinding?: unknown } | undefined;
function loadBetterSqlite(): { Database: BetterConstructor; nativeBinding?: unknown } {
  return (loaded ??= findBetterSqlite());
}

function findBetterSqlite(): { Database: BetterConstructor; nativeBinding?: unknown } {
  if (typeof __LOOPX_ROOT_FROM_BUNDLE__ === 'string') {
    const addon = join(__dirname, __LOOPX_ROOT_FROM_BUNDLE__, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    if (existsSync(addon)) {
      const binding = { exports: {} };
      process.dlopen(binding, addon);
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- bundled by esbuild, evaluated only here
      return { Database: require('better-sqlite3') as BetterConstructor, nativeBinding: binding.exports };
    }
  }
  const { createRequire } = process.getBuiltinModule('node:module') as { createRequire: typeof CreateRequire };
  return { Database: createRequire(__filename)('better-sqlite3') as BetterConstructor };
}

/** Whether better-sqlite3 is beside loopx (a checkout after `npm ci`), without loading it. */
export function betterSqliteFound(): boolean {
  if (loaded) return true;
  if (typeof __LOOPX_ROOT_FROM_BUNDLE__ === 'string') {
    const addon = join(__dirname, __LOOPX_ROOT_FROM_BUNDLE__, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    if (existsSync(addon)) return true;
  }
  try {
    const { createRequire } = process.getBuiltinModule('node:module') as { createRequire: typeof CreateRequire };
    createRequire(__filename).resolve('better-sqlite3');
    return true;
  } catch {
    return false;
  }
}

export function openBetterSqlite(path: string, busyTimeoutMs: number, readOnly = false): SqliteDb {
  const { Database, nativeBinding } = loadBetterSqlite();
  const options = readOnly ? { timeout: busyTimeoutMs, readonly: true, fileMustExist: true } : { timeout: busyTimeoutMs };
  const raw = new Database(path, nativeBinding ? { ...options, nativeBinding } : options);
  const cache = new StatementCache<Statement>();
  return {
    driver: 'better-sqlite3',
    exec: (sql) => raw.exec(sql),
    prepare: (sql) => cache.get(sql, (text) => raw.prepare(text) as unknown as Statement),
    close() {
      cache.clear();
      if (raw.open) raw.close();
    },
    get isOpen() {
      return raw.open;
    },
  };
}

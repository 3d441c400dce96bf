import type { createRequire as CreateRequire } from 'node:module';
import type { SqliteDb, Statement } from './sqliteDb';

type BetterStatement = {
  run(...p: unknown[]): { changes: number };
  get(...p: unknown[]): unknown;
  all(...p: unknown[]): unknown[];
};
type BetterDatabase = { exec(sql: string): void; prepare(sql: string): BetterStatement; close(): void; open: boolean };
type BetterConstructor = new (path: string, options?: { timeout?: number; readonly?: boolean; fileMustExist?: boolean }) => BetterDatabase;

export function openBetterSqlite(path: string, busyTimeoutMs: number, readOnly = false): SqliteDb {
  // Loaded lazily: the native addon is only required when this driver is chosen.
  const { createRequire } = process.getBuiltinModule('node:module') as { createRequire: typeof CreateRequire };
  const req = createRequire(__filename);
  const Database = req('better-sqlite3') as BetterConstructor;
  const raw = new Database(path, readOnly ? { timeout: busyTimeoutMs, readonly: true, fileMustExist: true } : { timeout: busyTimeoutMs });
  const cache = new Map<string, Statement>();
  return {
    driver: 'better-sqlite3',
    exec: (sql) => raw.exec(sql),
    prepare(sql) {
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = raw.prepare(sql) as unknown as Statement;
        cache.set(sql, stmt);
      }
      return stmt;
    },
    close() {
      cache.clear();
      if (raw.open) raw.close();
    },
    get isOpen() {
      return raw.open;
    },
  };
}

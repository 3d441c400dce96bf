import { type SqliteDb, type Statement, StatementCache } from './sqliteDb';

type NodeStatement = {
  run(...p: unknown[]): { changes: number | bigint };
  get(...p: unknown[]): unknown;
  all(...p: unknown[]): unknown[];
};
type NodeDatabase = { exec(sql: string): void; prepare(sql: string): NodeStatement; close(): void; isOpen?: boolean };
type NodeSqliteModule = { DatabaseSync: new (path: string, options?: { timeout?: number; readOnly?: boolean }) => NodeDatabase };

let cachedModule: NodeSqliteModule | null | undefined;

/** `node:sqlite` when this runtime has it (Node >= 22.13, recent Electron), else null. */
export function loadNodeSqlite(): NodeSqliteModule | null {
  if (cachedModule !== undefined) return cachedModule;
  // node:sqlite prints an ExperimentalWarning on load; an agent parsing stderr must not see noise.
  const original = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/SQLite/i.test(text)) return;
    (original as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    cachedModule = (process.getBuiltinModule('node:sqlite') as NodeSqliteModule | undefined) ?? null;
  } catch {
    cachedModule = null;
  } finally {
    process.emitWarning = original;
  }
  return cachedModule;
}

export function openNodeSqlite(path: string, busyTimeoutMs: number, readOnly = false): SqliteDb {
  const mod = loadNodeSqlite();
  if (!mod) throw new Error('node:sqlite is not available in this runtime');
  const raw = new mod.DatabaseSync(path, readOnly ? { timeout: busyTimeoutMs, readOnly: true } : { timeout: busyTimeoutMs });
  const cache = new StatementCache<Statement>();
  let open = true;
  return {
    driver: 'node:sqlite',
    exec: (sql) => raw.exec(sql),
    prepare: (sql) =>
      cache.get(sql, (text) => {
        const inner = raw.prepare(text);
        return {
          run: (...p) => ({ changes: Number(inner.run(...p).changes) }),
          get: (...p) => inner.get(...p) as ReturnType<Statement['get']>,
          all: (...p) => inner.all(...p) as ReturnType<Statement['all']>,
        };
      }),
    close() {
      cache.clear();
      if (open) raw.close();
      open = false;
    },
    get isOpen() {
      return open;
    },
  };
}

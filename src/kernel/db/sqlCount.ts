import type { SqliteDb, Statement } from './sqliteDb';

/**
 * LOOPX_COUNT=1: how much SQL this process ran, as one JSON line on stderr at exit, for the guard on an agent verb's
 * cost (test/cli/agentVerbCost.test.ts), which counts what does not vary from run to run where time does.
 * `exec` counts db.exec calls (pragmas, BEGIN/COMMIT, savepoints), `prepared` the distinct statements compiled,
 * `statements` each run/get/all of a prepared statement. Off (the default), nothing is wrapped.
 */
const counts = { exec: 0, prepared: 0, statements: 0 };
let reporting = false;

export function countedIfAsked(db: SqliteDb): SqliteDb {
  if (process.env.LOOPX_COUNT !== '1') return db;
  if (!reporting) {
    reporting = true;
    process.once('exit', () => process.stderr.write(`${JSON.stringify({ sql: counts })}\n`));
  }
  const wrapped = new Map<string, Statement>();
  return {
    get driver() {
      return db.driver;
    },
    exec(sql) {
      counts.exec += 1;
      db.exec(sql);
    },
    prepare(sql) {
      let stmt = wrapped.get(sql);
      if (!stmt) {
        counts.prepared += 1;
        const inner = db.prepare(sql);
        stmt = {
          run: (...p) => (counts.statements++, inner.run(...p)),
          get: (...p) => (counts.statements++, inner.get(...p)),
          all: (...p) => (counts.statements++, inner.all(...p)),
        };
        wrapped.set(sql, stmt);
      }
      return stmt;
    },
    close() {
      wrapped.clear();
      db.close();
    },
    get isOpen() {
      return db.isOpen;
    },
  };
}

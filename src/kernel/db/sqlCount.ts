import type { SqliteDb, Statement } from './sqliteDb';

/**
 * LOOPX_COUNT=1: how much SQL this process ran, as one JSON line on stderr at exit, for the guard on an agent verb's
 * cost (test/cli/agentVerbCost.test.ts), which counts what does not vary from run to run where time does.
 * `exec` counts db.exec calls (pragmas, BEGIN/COMMIT, savepoints), `prepared` the distinct statements compiled,
 * `statements` each run/get/all of a prepared statement. LOOPX_COUNT=time adds, before that line, the statements that
 * took longest in all (total ms, runs, the SQL): for a person looking for where a long-lived process's time goes
 * (`npm run bench:memory` under it found a runner's queries walking every turn a goal ever had). Off (the default),
 * nothing is wrapped.
 */
const counts = { exec: 0, prepared: 0, statements: 0 };
/** Per SQL text: total ms and runs (LOOPX_COUNT=time only). */
const times = new Map<string, { ms: number; runs: number }>();
let reporting = false;

export function countedIfAsked(db: SqliteDb): SqliteDb {
  const mode = process.env.LOOPX_COUNT;
  if (mode !== '1' && mode !== 'time') return db;
  if (!reporting) {
    reporting = true;
    process.once('exit', () => {
      if (mode === 'time') process.stderr.write(slowest(25));
      process.stderr.write(`${JSON.stringify({ sql: counts })}\n`);
    });
  }
  const timed =
    mode === 'time'
      ? <T>(sql: string, run: () => T): T => {
          const started = performance.now();
          try {
            return run();
          } finally {
            const entry = times.get(sql) ?? { ms: 0, runs: 0 };
            entry.ms += performance.now() - started;
            entry.runs += 1;
            times.set(sql, entry);
          }
        }
      : <T>(_sql: string, run: () => T): T => run();
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
          run: (...p) => (counts.statements++, timed(sql, () => inner.run(...p))),
          get: (...p) => (counts.statements++, timed(sql, () => inner.get(...p))),
          all: (...p) => (counts.statements++, timed(sql, () => inner.all(...p))),
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

/** The `top` statements by total time, one line each: total ms, runs, the SQL on one line (cut at 160 characters). */
function slowest(top: number): string {
  return [...times.entries()]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, top)
    .map(
      ([sql, t]) => `${t.ms.toFixed(0).padStart(7)} ms ${String(t.runs).padStart(8)}x  ${sql.replace(/\s+/g, ' ').trim().slice(0, 160)}\n`,
    )
    .join('');
}

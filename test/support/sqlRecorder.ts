import type { SqlValue, SqliteDb, Statement } from '../../src/kernel/db/sqliteDb';

/** One statement a connection ran: its SQL and its parameters (an exec has none). */
export interface Executed {
  sql: string;
  params: SqlValue[];
}

/**
 * Test support: records what a connection runs from now on, every exec and every statement's run/get/all with its
 * parameters, so a test can count them or EXPLAIN them (the guards on an MCP call's and a runner's SQL).
 */
export function recordStatements(db: SqliteDb, executed: Executed[]): void {
  const exec = db.exec.bind(db);
  const prepare = db.prepare.bind(db);
  db.exec = (sql) => {
    executed.push({ sql, params: [] });
    exec(sql);
  };
  db.prepare = (sql): Statement => {
    const inner = prepare(sql);
    const recorded =
      <K extends keyof Statement>(method: K) =>
      (...params: SqlValue[]) => {
        executed.push({ sql, params });
        return (inner[method] as (...p: SqlValue[]) => ReturnType<Statement[K]>)(...params);
      };
    return { run: recorded('run'), get: recorded('get'), all: recorded('all') };
  };
}

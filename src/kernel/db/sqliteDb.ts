/** The few SQLite operations the kernel needs, so that it runs on `node:sqlite` and `better-sqlite3` alike. */
export type SqlValue = string | number | bigint | null | Uint8Array;
export type Row = Record<string, SqlValue>;

export interface Statement {
  run(...params: SqlValue[]): { changes: number };
  get(...params: SqlValue[]): Row | undefined;
  all(...params: SqlValue[]): Row[];
}

export interface SqliteDb {
  readonly driver: DriverName;
  exec(sql: string): void;
  /** Prepared statements are cached per SQL text: the kernel prepares on every call without cost. */
  prepare(sql: string): Statement;
  close(): void;
  readonly isOpen: boolean;
}

export type DriverName = 'node:sqlite' | 'better-sqlite3';

/** How many prepared statements a connection keeps (StatementCache). */
export const STATEMENT_CACHE_SIZE = 500;

/**
 * A connection's prepared statements by SQL text, the most recently used STATEMENT_CACHE_SIZE of them: a statement
 * with its LIMIT and OFFSET written in (limitSql.ts) is a text of its own for each page, and a process that lives long
 * (the MCP server, VS Code) would otherwise keep every one it ever ran. One home for both drivers.
 */
export class StatementCache<S> {
  private readonly kept = new Map<string, S>();

  constructor(private readonly size = STATEMENT_CACHE_SIZE) {}

  get(sql: string, prepare: (sql: string) => S): S {
    const found = this.kept.get(sql);
    if (found !== undefined) {
      // Most recently used last: Map keeps insertion order, so the first key is the one to let go.
      this.kept.delete(sql);
      this.kept.set(sql, found);
      return found;
    }
    const made = prepare(sql);
    this.kept.set(sql, made);
    if (this.kept.size > this.size) this.kept.delete(this.kept.keys().next().value as string);
    return made;
  }

  get count(): number {
    return this.kept.size;
  }

  clear(): void {
    this.kept.clear();
  }
}

/** Runs `fn` inside BEGIN IMMEDIATE (write lock taken up front, so compare-and-swap reads cannot go stale). */
export function immediate<T>(db: SqliteDb, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    rollBack(db);
    throw error;
  }
}

/**
 * Ends a failed write transaction. SQLite has already rolled it back itself when the error was a full disk or an I/O
 * error at COMMIT; its ROLLBACK then fails ("no transaction is active") and must not hide the error that ended it.
 */
function rollBack(db: SqliteDb): void {
  try {
    db.exec('ROLLBACK');
  } catch (error) {
    if (!/no transaction is active/.test((error as Error).message)) throw error;
  }
}

/** A read transaction: every query inside sees one snapshot even while other processes commit. */
export function snapshot<T>(db: SqliteDb, fn: () => T): T {
  db.exec('BEGIN');
  try {
    return fn();
  } finally {
    db.exec('COMMIT');
  }
}

/** A number that changes when another connection commits to the file (SQLite's cheap "did anything change"). */
export function dataVersion(db: SqliteDb): number {
  return Number(db.prepare('PRAGMA data_version').get()?.data_version ?? 0);
}

/** SQLite's own integrity check: ['ok'] when sound, else its first complaints. */
export function integrityCheck(db: SqliteDb): string[] {
  return db
    .prepare('PRAGMA integrity_check')
    .all()
    .map((r) => String(Object.values(r)[0]));
}

/** What `loopx doctor` reports about the engine: its version, dangling references, and the journal mode. */
export function engineFacts(db: SqliteDb): { sqliteVersion: string; danglingReferences: number; journalMode: string } {
  return {
    sqliteVersion: String(db.prepare('SELECT sqlite_version() AS v').get()?.v),
    danglingReferences: db.prepare('PRAGMA foreign_key_check').all().length,
    journalMode: String(db.prepare('PRAGMA journal_mode').get()?.journal_mode),
  };
}

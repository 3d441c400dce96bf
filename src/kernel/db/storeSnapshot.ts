import type { Row, SqlValue, SqliteDb, Statement } from './sqliteDb';

const MAX_ENTRIES = 50_000;

/**
 * A read-only view of a store whose answers are remembered until the kernel's watcher says the store changed (used by the
 * language server; here because SQL stays in the kernel). The server re-checks a goal
 * file on every keystroke, and between two keystrokes the store almost never moves: the same reads (the goal, its
 * todos, their dependencies, who changed what last) give the same rows. Only reads go through it; the server never
 * writes. Rows are shared between callers, who treat them as read-only, as they do rows from SQLite.
 */
export class StoreSnapshot {
  private readonly answers = new Map<string, Row | Row[] | undefined>();
  private size = 0;
  /** Reads answered from SQLite since the last change (tests read it to prove a keystroke reads nothing). */
  misses = 0;

  /** The store changed: forget every answer. */
  invalidate(): void {
    this.answers.clear();
    this.size = 0;
  }

  /** `db` (inside the kernel's read snapshot) seen through the remembered answers. */
  over(db: SqliteDb): SqliteDb {
    const remember = <T extends Row | Row[] | undefined>(sql: string, kind: 'get' | 'all', params: SqlValue[], read: () => T): T => {
      const key = `${kind}\u0000${sql}\u0000${JSON.stringify(params, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`;
      if (this.answers.has(key)) {
        const hit = this.answers.get(key) as T;
        return (Array.isArray(hit) ? [...hit] : hit) as T;
      }
      this.misses++;
      const value = read();
      if (this.size >= MAX_ENTRIES) this.invalidate();
      this.answers.set(key, Array.isArray(value) ? [...value] : value);
      this.size++;
      return value;
    };
    return {
      driver: db.driver,
      get isOpen() {
        return db.isOpen;
      },
      exec: () => {
        throw new Error('the language server reads the store; it never writes it');
      },
      close: () => undefined,
      prepare(sql: string): Statement {
        const statement = db.prepare(sql);
        return {
          run: () => {
            throw new Error('the language server reads the store; it never writes it');
          },
          get: (...params) => remember(sql, 'get', params, () => statement.get(...params)),
          all: (...params) => remember(sql, 'all', params, () => statement.all(...params)),
        };
      },
    };
  }
}

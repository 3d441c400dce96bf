import { existsSync, watch as fsWatch } from 'node:fs';
import { join } from 'node:path';
import type { Actor, StoredEvent } from '../events/eventTypes';
import { EventAppender, type HeadGuard } from '../events/log';
import { logHead } from '../events/anchor';
import { iso } from '../time';
import { nextNum } from '../model';
import { RefusedError, StoreMovedError } from '../errors';
import { TEAM_POINTER_FILE } from '../team/teamPointer';
import { APPLICATION_ID } from '../storeFile';
import type { ChangeSignal, Committed, StoreEngine, UnitOfWork, WatchFn } from '../unitOfWork';
import { type SqliteDb, dataVersion, immediate, snapshot } from './sqliteDb';

/** The file names of a store's database (loopx.db, its -wal and -shm): the only writes a change signal wakes for. */
const STORE_FILE = 'loopx.db';
const ID_TABLES = ['goals', 'todos', 'gates', 'handoffs', 'turns', 'monitors', 'hooks'] as const;

/**
 * The tables the store's own triggers keep from its state tables (migrations 0016, 0023), each with the order that
 * makes a comparison stable. Written by nothing else: a copy (restore) recounts them instead of copying them
 * (restoreFrom, below), and doctor's replay compares them with a replay's on their rows that count something (replay.ts;
 * a row whose count fell to 0 may stay in one and be absent from the other).
 */
export const KEPT_COUNTS: Readonly<Record<string, string>> = {
  todo_counts: 'goal_id, status',
  todo_holds: 'todo_id',
  open_unheld: 'goal_id',
};

/**
 * The SQLite engine behind the kernel's units of work: a write is one BEGIN IMMEDIATE transaction (the write lock
 * taken up front, so nothing read inside can go stale), its events chained by one appender that reads the log head
 * once; a read is one deferred transaction (one snapshot). Synchronous, like both SQLite drivers.
 */
export class SqliteEngine implements StoreEngine {
  constructor(
    readonly db: SqliteDb,
    /** The store's folder (.loopx/), which the change signal watches. */
    private readonly storeDir: string,
  ) {}

  write<T>(actor: Actor, clock: () => number, fn: (uow: UnitOfWork) => T): Committed<T> {
    let events: StoredEvent[] = [];
    const value = immediate(this.db, () => {
      // The instant is read inside the transaction, once the write lock is held.
      const nowMs = clock();
      const at = iso(nowMs);
      const appender = new EventAppender(this.db, actor, at, this.refuseIfMoved);
      events = appender.appended;
      const result = fn({ db: this.db, nowMs, at, actor, emit: appender.emit });
      appender.finish();
      return result;
    });
    return { value, events };
  }

  /**
   * A store `loopx team push` moved into a team store ends with its `team.pushed` event, written under the write lock
   * that the push holds until the workspace's pointer exists. A process that opened this file before the push (an
   * MCP server, `loopx run`, a CLI call that waited on the lock) would otherwise write into the abandoned file, which
   * nobody reads again: it is refused (`store_moved`, retryable) at its write's first event, before anything changes.
   * The check costs no query (the appender reads the head anyway, now with its kind: about 1 µs a write) and a stat
   * only after a push. Without the pointer (a person put the old file back) the store takes writes again; `team.left`
   * chains onto a copy of a team log that may end with the push.
   */
  private readonly refuseIfMoved: HeadGuard = (head, draft) => {
    if (head?.kind !== 'team.pushed' || draft.kind === 'team.left') return;
    if (!existsSync(join(this.storeDir, TEAM_POINTER_FILE))) return;
    const pushed = this.db.prepare('SELECT at, data FROM events WHERE seq = ?').get(head.seq);
    const data = JSON.parse(String(pushed?.data ?? '{}')) as { database?: string };
    throw new StoreMovedError(data.database, String(pushed?.at ?? 'the push'));
  };

  read<T>(clock: () => number, fn: (db: SqliteDb, nowMs: number) => T): T {
    return snapshot(this.db, () => fn(this.db, clock()));
  }

  /** VACUUM INTO reads one snapshot, so writers in other processes go on. */
  backupTo(path: string): void {
    this.db.prepare('VACUUM INTO ?').run(path);
  }

  /** One BEGIN IMMEDIATE: save the current content into `saveTo`, replace it with `copy`'s, keep ids above both. */
  restoreFrom(copy: string, saveTo: string, options: { schemaVersion: number; named: string }): { seq: number; hash: string } | null {
    const { schemaVersion, named } = options;
    const db = this.db;
    // ATTACH is not allowed inside a transaction: both files are attached first, then the lock is taken once.
    db.prepare('ATTACH DATABASE ? AS saved').run(saveTo);
    db.prepare('ATTACH DATABASE ? AS restored').run(copy);
    // Foreign keys are checked once, over the whole result, before COMMIT (deferred counting misjudges a table
    // emptied and refilled under its children); the pragma only changes outside a transaction.
    db.exec('PRAGMA foreign_keys = OFF');
    try {
      return immediate(db, () => {
        const schema = db
          .prepare(
            `SELECT type, name, sql FROM main.sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index', rowid`,
          )
          .all();
        for (const row of schema) db.exec(String(row.sql).replace(/^CREATE (TABLE|UNIQUE INDEX|INDEX|TRIGGER) ("?)/, 'CREATE $1 saved.$2'));
        // A table the store's triggers keep (KEPT_COUNTS) is recounted as the rows it counts are copied, never copied.
        const tables = schema.filter((r) => r.type === 'table' && !Object.hasOwn(KEPT_COUNTS, String(r.name))).map((r) => String(r.name));
        for (const table of tables) db.exec(`INSERT INTO saved."${table}" SELECT * FROM main."${table}"`);
        db.exec(`PRAGMA saved.user_version = ${schemaVersion}`);
        db.exec(`PRAGMA saved.application_id = ${APPLICATION_ID}`);
        const savedHead = logHead(db);
        const highest = new Map(ID_TABLES.map((t) => [t, nextNum(db, t) - 1]));
        for (const table of tables) {
          db.exec(`DELETE FROM main."${table}"`);
          db.exec(`INSERT INTO main."${table}" SELECT * FROM restored."${table}"`);
        }
        const keep = db.prepare(
          'INSERT INTO main.id_high_water (entity, num) VALUES (?, ?) ON CONFLICT (entity) DO UPDATE SET num = max(num, excluded.num)',
        );
        for (const [table, num] of highest) if (num > 0) keep.run(table, num);
        const dangling = db.prepare('PRAGMA main.foreign_key_check').all();
        if (dangling.length) throw new RefusedError('backup_broken', `${named} has ${dangling.length} dangling references`);
        return savedHead;
      });
    } finally {
      db.exec('PRAGMA foreign_keys = ON');
      db.exec('DETACH DATABASE restored');
      db.exec('DETACH DATABASE saved');
    }
  }

  /**
   * A watch on the store's folder wakes the reader when the database or its WAL is written; `PRAGMA data_version`
   * moves only for other connections' commits, so our own writes cost the reader one cheap pragma.
   */
  changeSignal(options: { watch?: WatchFn } = {}): ChangeSignal {
    const db = this.db;
    const watch = options.watch ?? ((dir, listener) => fsWatch(dir, { persistent: false }, (event, file) => listener(event, file)));
    const storeDir = this.storeDir;
    return {
      get isOpen() {
        return db.isOpen;
      },
      version: () => dataVersion(db),
      head: () => logHead(db) ?? { seq: 0, hash: '' },
      watch: (wake) =>
        watch(storeDir, (_event, file) => {
          if (file && !String(file).startsWith(STORE_FILE)) return;
          wake();
        }),
    };
  }
}

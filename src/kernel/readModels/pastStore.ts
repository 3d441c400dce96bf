import type { DriverName, SqliteDb } from '../db/sqliteDb';
import { openDb } from '../db/openDb';
import { migrate } from '../db/migrate';
import { applyEvent } from '../events/setAside';
import { rowToEvent } from '../events/log';
import { STATE_TABLES } from '../replay';

/**
 * A checkpoint of the replayed state every this many events (a move replays at most this many), and no more than
 * MAX_CHECKPOINTS of them: each is a copy of the state tables, so a longer log spaces them further apart.
 */
export const CHECKPOINT_EVERY = 2000;
export const MAX_CHECKPOINTS = 50;

/**
 * The store as it was right after any event, by replaying the log (the kernel's own reducers, as `doctor`'s replay
 * does) into an in-memory database. Made for scrubbing: moving forward applies only the events in between; moving
 * back restores the nearest checkpoint (the state tables copied inside SQLite every CHECKPOINT_EVERY events) and
 * replays from there. The log itself is read from the store file, attached read-only in spirit (nothing writes it),
 * and every query of `events` sees only the events up to the moment (a temporary view shadows the table), so every
 * kernel query — the board's, a card's history — answers as it would have then.
 */
export class PastStore {
  private readonly db: SqliteDb;
  private position = 0;
  private readonly saved = new Set<number>([0]);
  private readonly columns = new Map<string, string>();

  private every: number;

  constructor(storePath: string, driver: DriverName, every = CHECKPOINT_EVERY) {
    this.db = openDb(':memory:', driver);
    this.every = every;
    try {
      migrate(this.db);
      // Replay applies events in their order; nothing to check across tables while a checkpoint is put back.
      this.db.exec('PRAGMA foreign_keys = OFF');
      this.db.prepare('ATTACH DATABASE ? AS src').run(storePath);
      this.db.exec(`ATTACH DATABASE ':memory:' AS cp`);
      for (const table of Object.keys(STATE_TABLES)) {
        const names = this.db
          .prepare(`SELECT name FROM pragma_table_info(?)`)
          .all(table)
          .map((r) => `"${String(r.name)}"`);
        this.columns.set(table, names.join(', '));
        this.db.exec(`CREATE TABLE cp.${table} AS SELECT 0 AS cp_seq, * FROM main.${table} WHERE 0`);
        this.db.exec(`CREATE INDEX cp.${table}_seq ON ${table} (cp_seq)`);
      }
      this.show(0);
      this.every = Math.max(every, Math.ceil(this.head() / MAX_CHECKPOINTS));
    } catch (error) {
      this.db.close();
      throw error;
    }
  }

  /** The newest event in the store now. */
  head(): number {
    return Number(this.db.prepare('SELECT coalesce(max(seq), 0) AS n FROM src.events').get()?.n ?? 0);
  }

  /** The event at `seq` (its time and kind), or null past the end. */
  event(seq: number): { seq: number; at: string; kind: string; actor: string; actorKind: string; data: unknown } | null {
    const row = this.db.prepare('SELECT seq, at, kind, actor, actor_kind, data FROM src.events WHERE seq = ?').get(seq);
    return row
      ? {
          seq,
          at: String(row.at),
          kind: String(row.kind),
          actor: String(row.actor),
          actorKind: String(row.actor_kind),
          data: JSON.parse(String(row.data)),
        }
      : null;
  }

  /** The last event at or before `isoTime` (0 before the first): a binary search, events being in time order. */
  seqAt(isoTime: string): number {
    let lo = 0;
    let hi = this.head();
    const at = this.db.prepare('SELECT at FROM src.events WHERE seq = ?');
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (String(at.get(mid)?.at ?? '') <= isoTime) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The store as it was right after event `seq` (clamped to the log): read it, never write it. */
  moveTo(seq: number): SqliteDb {
    const target = Math.max(0, Math.min(Math.floor(seq), this.head()));
    // Start from the nearest checkpoint at or before the target when it is closer than where we are (back, or far ahead).
    const nearest = Math.max(...[...this.saved].filter((s) => s <= target));
    if (target < this.position || nearest > this.position) this.restore(nearest);
    while (this.position < target) {
      const boundary = (Math.floor(this.position / this.every) + 1) * this.every;
      this.apply(Math.min(target, boundary));
      if (this.position === boundary && !this.saved.has(boundary)) this.checkpoint();
    }
    this.show(target);
    return this.db;
  }

  get at(): number {
    return this.position;
  }

  close(): void {
    this.db.close();
  }

  private apply(to: number): void {
    const page = this.db.prepare('SELECT * FROM src.events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT 5000');
    this.db.exec('BEGIN');
    try {
      while (this.position < to) {
        const rows = page.all(this.position, to);
        if (rows.length === 0) break;
        for (const row of rows) applyEvent(this.db, rowToEvent(row));
        this.position = Number(rows[rows.length - 1]?.seq);
      }
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
  }

  private checkpoint(): void {
    for (const [table, columns] of this.columns)
      this.db.prepare(`INSERT INTO cp.${table} (cp_seq, ${columns}) SELECT ?, ${columns} FROM main.${table}`).run(this.position);
    this.saved.add(this.position);
  }

  private restore(seq: number): void {
    this.db.exec('BEGIN');
    try {
      for (const [table, columns] of this.columns) {
        this.db.exec(`DELETE FROM main.${table}`);
        this.db.prepare(`INSERT INTO main.${table} (${columns}) SELECT ${columns} FROM cp.${table} WHERE cp_seq = ?`).run(seq);
      }
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
    this.position = seq;
  }

  /** Every query of `events` now sees the log up to `seq` only. */
  private show(seq: number): void {
    this.db.exec('DROP VIEW IF EXISTS temp.events');
    this.db.exec(`CREATE TEMP VIEW events AS SELECT * FROM src.events WHERE seq <= ${Number(seq)}`);
  }
}

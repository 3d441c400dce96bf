import type { Actor, StoredEvent } from '../events/eventTypes';
import { EventAppender } from '../events/log';
import { iso } from '../time';
import type { Committed, StoreEngine, UnitOfWork } from '../unitOfWork';
import { type SqliteDb, immediate, snapshot } from './sqliteDb';

/**
 * The SQLite engine behind the kernel's units of work: a write is one BEGIN IMMEDIATE transaction (the write lock
 * taken up front, so nothing read inside can go stale), its events chained by one appender that reads the log head
 * once; a read is one deferred transaction (one snapshot). Synchronous, like both SQLite drivers.
 */
export class SqliteEngine implements StoreEngine {
  constructor(readonly db: SqliteDb) {}

  write<T>(actor: Actor, clock: () => number, fn: (uow: UnitOfWork) => T): Committed<T> {
    const events: StoredEvent[] = [];
    const value = immediate(this.db, () => {
      // The instant is read inside the transaction, once the write lock is held.
      const nowMs = clock();
      const at = iso(nowMs);
      const appender = new EventAppender(this.db, actor, at);
      const result = fn({
        db: this.db,
        nowMs,
        at,
        actor,
        emit: (draft, as) => {
          const event = appender.append(draft, as);
          events.push(event);
          return event;
        },
      });
      appender.finish();
      return result;
    });
    return { value, events };
  }

  read<T>(clock: () => number, fn: (db: SqliteDb, nowMs: number) => T): T {
    return snapshot(this.db, () => fn(this.db, clock()));
  }
}

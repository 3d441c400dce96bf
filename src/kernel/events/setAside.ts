import type { SqliteDb } from '../db/sqliteDb';
import type { StoredEvent } from './eventTypes';
import { invalidEventData } from './eventValidation';
import { applyReducer, touchAgent } from './log';
import { busyError, environmentError } from '../storeFile';
import { transitionRefusal } from '../todos/todoTransitions';

/**
 * Applying a stored event, or setting it aside: the one home of that decision. Every event loopx did not just build
 * itself (a team replica's catch-up, replay, a rebuilt replica, the story's past store) goes through `applyEvent`.
 *
 * A well-chained event can still be one the reducers cannot apply, or one the kernel would have refused: a duplicate
 * `todo.added` or a claim of a shipped todo written with raw SQL into a store's file (or into a team store from before
 * its transition trigger), data that does not fit its kind. Stopping there would stop the store for good on every
 * machine (the log is append-only), so the event is set aside instead: its reducer's effect is rolled back to a
 * savepoint, and the event is recorded in `set_aside` (seq, kind, writer, why). The decision depends only on the
 * event and the state before it, so every machine, every replay and every rebuild makes the same one. Environment
 * trouble (a full disk, a busy or damaged file) is not the event's fault: it is thrown, and nothing is set aside.
 */
export function applyEvent(db: SqliteDb, e: StoredEvent): boolean {
  // A transition the kernel would refuse (a claim of a shipped todo, a duplicate key…) is set aside, not applied: the
  // same table the team store's trigger is generated from (todos/todoTransitions.ts).
  let why = invalidEventData(e) ?? transitionRefusal(db, e);
  if (why === null) {
    db.exec('SAVEPOINT apply_event');
    try {
      applyReducer(db, e);
      touchAgent(db, e.actor, e.actorKind, e.at);
      db.exec('RELEASE apply_event');
      return true;
    } catch (error) {
      db.exec('ROLLBACK TO apply_event');
      db.exec('RELEASE apply_event');
      if (environmentError(error) || busyError(error)) throw error;
      why = firstLine(error instanceof Error ? error.message : String(error));
    }
  }
  // OR REPLACE: the story's past store applies an event again after putting a checkpoint back.
  db.prepare('INSERT OR REPLACE INTO set_aside (seq, kind, actor, actor_kind, why) VALUES (?, ?, ?, ?, ?)').run(
    e.seq,
    e.kind,
    e.actor,
    e.actorKind,
    why,
  );
  return false;
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? '').slice(0, 300);
}

/** An event set aside, and the person's decision about it once one is recorded. */
export interface SetAsideEvent {
  seq: number;
  kind: string;
  actor: string;
  actorKind: string;
  why: string;
  handled: { by: string; decision: string; at: string; decidedSeq: number } | null;
}

/** Every event this store set aside, oldest first, each with its handled decision (or null). */
export function setAsideEvents(db: SqliteDb): SetAsideEvent[] {
  return db
    .prepare(
      `SELECT s.seq, s.kind, s.actor, s.actor_kind, s.why, h.decided_seq, h.decided_by, h.decision, h.at
         FROM set_aside s LEFT JOIN set_aside_handled h ON h.seq = s.seq ORDER BY s.seq`,
    )
    .all()
    .map((r) => ({
      seq: Number(r.seq),
      kind: String(r.kind),
      actor: String(r.actor),
      actorKind: String(r.actor_kind),
      why: String(r.why),
      handled:
        r.decided_seq === null
          ? null
          : { by: String(r.decided_by), decision: String(r.decision), at: String(r.at), decidedSeq: Number(r.decided_seq) },
    }));
}

/** The decision recorded about set-aside event `seq`, if any (it may come from replay on a local store, below). */
export function handledDecision(db: SqliteDb, seq: number): { by: string; decision: string } | null {
  const row = db.prepare('SELECT decided_by, decision FROM set_aside_handled WHERE seq = ?').get(seq);
  return row ? { by: String(row.decided_by), decision: String(row.decision) } : null;
}

/** One line naming a set-aside event for people: its seq, kind, writer and why. */
export function setAsideWords(e: Pick<SetAsideEvent, 'seq' | 'kind' | 'actor' | 'actorKind' | 'why'>): string {
  return `event ${e.seq} (${e.kind}, written by ${e.actorKind} ${e.actor}) was set aside: ${e.why}`;
}

import type { SqliteDb } from '../db/sqliteDb';
import { canonicalJson } from '../events/canonical';
import { applyEvent } from '../events/setAside';
import type { StoredEvent } from '../events/eventTypes';
import type { LogAnchor } from '../events/anchor';
import { insertEventRow, rowToEvent } from '../events/log';
import type { PgRow, PgStatement, SyncPg } from './syncPg';
import { NOTIFY_CHANNEL } from './teamRoles';
import { ReplicaDivergedError } from './teamErrors';

// The team log's statements and the replica's catch-up: what a team write sends to PostgreSQL and how events it
// fetches become the replica's. The same reducers as a local store apply them (applyEvent), with the log's rows; an
// event they cannot apply is set aside there, as replay sets it aside (events/setAside.ts): the replica keeps serving.

export const COLUMNS = 'seq, at, actor, actor_kind, kind, goal_id, todo_id, data, prev_hash, hash';

/** The events after `$1`, in the log's order: what a replica at that seq lacks. */
export const EVENTS_AFTER = `SELECT ${COLUMNS} FROM loopx.events WHERE seq > $1 ORDER BY seq`;

/**
 * BEGIN, hold the head (the writers' lock, until COMMIT), read what the replica has not seen yet, and the server's
 * clock once the head is held (one clock for every machine's events: their times follow the log's order) with its
 * `synchronous_commit` (`off`: the server may forget what it confirms, and the write is refused before its COMMIT).
 * One batch, one round trip: a write makes two in all, this and commitStatements' (test/team/roundTrips.test.ts).
 */
export function lockAndFetchStatements(afterSeq: number): PgStatement[] {
  return [
    { text: 'BEGIN' },
    { text: 'SELECT seq, hash FROM loopx.lock_head()' },
    { text: EVENTS_AFTER, values: [afterSeq] },
    { text: SERVER_CLOCK },
  ];
}

/** The server's clock in ms, and its `synchronous_commit` (`off`: it may forget what it confirms). */
export const SERVER_CLOCK =
  "SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms, current_setting('synchronous_commit') AS sync";

/** The operation id first (a second commit with the same id fails there), then the events, a wake-up, COMMIT. */
export function commitStatements(opId: string, events: readonly StoredEvent[]): PgStatement[] {
  const first = events[0];
  const last = events[events.length - 1];
  if (!first || !last) return [{ text: 'COMMIT' }];
  const values: unknown[] = [opId];
  const rows = events.map((e) => {
    const at = values.length;
    values.push(e.seq, e.at, e.actor, e.actorKind, e.kind, e.goalId, e.todoId, canonicalJson(e.data), e.prevHash, e.hash);
    return `(${Array.from({ length: 10 }, (_, i) => `$${at + i + 1}`).join(', ')}, $1)`;
  });
  return [
    { text: 'INSERT INTO loopx.ops (op_id, first_seq, last_seq) VALUES ($1, $2, $3)', values: [opId, first.seq, last.seq] },
    { text: `INSERT INTO loopx.events (${COLUMNS}, op_id) VALUES ${rows.join(', ')}`, values },
    { text: 'SELECT pg_notify($1, $2)', values: [NOTIFY_CHANNEL, String(last.seq)] },
    { text: 'COMMIT' },
  ];
}

/**
 * Whether an operation committed: its ops row, read holding the log's head (a COMMIT still in flight on a connection
 * given up on holds the head until it lands or not); the third statement's rows answer. The worker's question
 * (TeamEngine.operationLanded) and a one-shot write's (laterCommit.ts).
 */
export function operationLandedStatements(opId: string): PgStatement[] {
  return [
    { text: 'BEGIN' },
    { text: 'SELECT seq FROM loopx.lock_head()' },
    { text: 'SELECT first_seq, last_seq FROM loopx.ops WHERE op_id = $1', values: [opId] },
    { text: 'ROLLBACK' },
  ];
}

/** Events committed after `afterSeq`, in order (no lock: committed events are always a prefix of the chain). */
export function fetchAfter(pg: SyncPg, afterSeq: number): StoredEvent[] {
  return rowsToEvents(pg.query(EVENTS_AFTER, [afterSeq]));
}

export function rowsToEvents(rows: readonly PgRow[]): StoredEvent[] {
  return rows.map((row) => rowToEvent(row as never));
}

/**
 * Applies fetched events to the replica inside its open transaction, after checking they continue its chain: a
 * replica whose head is not in the log (another team store, or a log restored to an earlier point) is refused, not
 * merged. `logHeadRow` is the log's head as locked, when the caller holds it: the replica must end there.
 */
export function applyTeamEvents(db: SqliteDb, events: readonly StoredEvent[], from?: LogAnchor, logHeadRow?: PgRow): StoredEvent[] {
  let head = from;
  for (const event of events) {
    if (head && (event.seq !== head.seq + 1 || event.prevHash !== head.hash))
      throw new ReplicaDivergedError(`the team log's event ${event.seq} does not follow this replica's event ${head.seq}`);
    applyEvent(db, event);
    insertEventRow(db, event, canonicalJson(event.data));
    head = { seq: event.seq, hash: event.hash };
  }
  if (logHeadRow && head) {
    const logSeq = Number(logHeadRow.seq);
    if (logSeq !== head.seq || String(logHeadRow.hash) !== head.hash)
      throw new ReplicaDivergedError(`this replica ends at event ${head.seq} but the team log ends at event ${logSeq}`);
  }
  return [...events];
}

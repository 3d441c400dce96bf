import type { SqliteDb, Row } from '../db/sqliteDb';
import type { Actor, EventDraft, StoredEvent } from './eventTypes';
import { canonicalJson } from './canonical';
import { GENESIS_HASH, eventHash } from './hashChain';
import { applyEvent } from './apply';

/** Appends one event and applies it. Must run inside the caller's write transaction. */
export function appendEvent(db: SqliteDb, actor: Actor, at: string, draft: EventDraft): StoredEvent {
  const last = db.prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1').get();
  const seq = last ? Number(last.seq) + 1 : 1;
  const prevHash = last ? String(last.hash) : GENESIS_HASH;
  const data = canonicalJson(draft.data);
  const fields = { seq, at, actor: actor.name, actorKind: actor.kind, kind: draft.kind, goalId: draft.goalId, todoId: draft.todoId, data };
  const hash = eventHash(prevHash, fields);
  const event = { ...draft, seq, at, actor: actor.name, actorKind: actor.kind, prevHash, hash } as StoredEvent;
  applyEvent(db, event);
  insertEventRow(db, event, data);
  return event;
}

export function insertEventRow(db: SqliteDb, e: StoredEvent, dataText = canonicalJson(e.data)): void {
  db.prepare(
    `INSERT INTO events (seq, at, actor, actor_kind, kind, goal_id, todo_id, data, prev_hash, hash)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(e.seq, e.at, e.actor, e.actorKind, e.kind, e.goalId, e.todoId, dataText, e.prevHash, e.hash);
}

export function rowToEvent(row: Row): StoredEvent {
  return {
    seq: Number(row.seq),
    at: String(row.at),
    actor: String(row.actor),
    actorKind: row.actor_kind,
    kind: row.kind,
    goalId: row.goal_id ?? null,
    todoId: row.todo_id ?? null,
    data: JSON.parse(String(row.data)),
    prevHash: String(row.prev_hash),
    hash: String(row.hash),
  } as StoredEvent;
}

export interface VerifyResult {
  ok: boolean;
  events: number;
  firstBadSeq: number | null;
  /** Why the first bad event is bad (hash mismatch, broken link, gap in sequence). */
  problem: string | null;
}

const PAGE = 5000;

/** Walks the chain in pages (bounded memory) and reports the first event whose link or hash is wrong. */
export function verifyChain(db: SqliteDb): VerifyResult {
  const page = db.prepare(
    'SELECT seq, at, actor, actor_kind, kind, goal_id, todo_id, data, prev_hash, hash FROM events WHERE seq > ? ORDER BY seq LIMIT ?',
  );
  const total = Number(db.prepare('SELECT count(*) AS n FROM events').get()?.n ?? 0);
  let prevHash = GENESIS_HASH;
  let expectedSeq = 1;
  for (;;) {
    const rows = page.all(expectedSeq - 1, PAGE);
    if (rows.length === 0) break;
    for (const row of rows) {
      const seq = Number(row.seq);
      const bad = (problem: string, at = seq): VerifyResult => ({ ok: false, events: total, firstBadSeq: at, problem });
      if (seq !== expectedSeq) return bad(`sequence gap: expected event ${expectedSeq}, found ${seq}`, expectedSeq);
      if (row.prev_hash !== prevHash) return bad('prevHash does not match the previous event');
      const hash = eventHash(prevHash, {
        seq,
        at: String(row.at),
        actor: String(row.actor),
        actorKind: String(row.actor_kind),
        kind: String(row.kind),
        goalId: (row.goal_id as string | null) ?? null,
        todoId: (row.todo_id as string | null) ?? null,
        data: String(row.data),
      });
      if (hash !== row.hash) return bad('hash does not match the event content');
      prevHash = hash;
      expectedSeq++;
    }
  }
  return { ok: true, events: total, firstBadSeq: null, problem: null };
}

import type { SqliteDb, Row } from '../db/sqliteDb';
import type { Actor, EventDraft, StoredEvent } from './eventTypes';
import { canonicalJson } from './canonical';
import { GENESIS_HASH, SQL_EVENT_BODY, eventHash } from './hashChain';
import { nodeCrypto, sha256 } from '../nodeCrypto';
import { applyReducer, touchAgent } from './apply';
import { logHead } from './anchor';
import { checkTail } from '../logHealth';

/**
 * Appends events inside one write transaction: reads the chain head once, then chains each event in memory.
 * Every event of a transaction shares its actor and time, so the agent's last-seen is touched once, at the end.
 */
export class EventAppender {
  private head: { seq: number; hash: string } | undefined;
  private readonly seen = new Map<string, Actor>();

  constructor(
    private readonly db: SqliteDb,
    private readonly actor: Actor,
    private readonly at: string,
  ) {}

  /** `as` attributes one event to another actor (a turn claims for its agent inside the starter's transaction). */
  append(draft: EventDraft, as: Actor = this.actor): StoredEvent {
    if (this.head === undefined) {
      // Before chaining onto the log, check its tail: a rewritten log is noticed before anyone acts on it.
      const broken = draft.kind === 'log.accepted' ? null : checkTail(this.db);
      if (broken) throw new TailBrokenError(broken);
      this.head = readHead(this.db);
    }
    const seq = this.head.seq + 1;
    const prevHash = this.head.hash;
    const actor = as;
    // A human's channel is part of the record (and so of the hash): which way a decision came in.
    const payload = actor.kind === 'human' && actor.channel ? { ...draft.data, channel: actor.channel } : draft.data;
    const data = canonicalJson(payload);
    const { at } = this;
    const hash = eventHash(prevHash, {
      seq,
      at,
      actor: actor.name,
      actorKind: actor.kind,
      kind: draft.kind,
      goalId: draft.goalId,
      todoId: draft.todoId,
      data,
    });
    const event = { ...draft, data: payload, seq, at, actor: actor.name, actorKind: actor.kind, prevHash, hash } as StoredEvent;
    applyReducer(this.db, event);
    insertEventRow(this.db, event, data);
    this.head = { seq, hash };
    this.seen.set(actor.name, actor);
    return event;
  }

  /** Call before COMMIT: each actor of this transaction is touched once (all its events share one time). */
  finish(): void {
    for (const actor of this.seen.values()) touchAgent(this.db, actor.name, actor.kind, this.at);
  }
}

/** The tail check failed: the kernel marks the store broken and refuses the write. */
export class TailBrokenError extends Error {
  constructor(readonly found: { firstBadSeq: number; problem: string }) {
    super(`the event log is broken at event ${found.firstBadSeq}: ${found.problem}`);
  }
}

function readHead(db: SqliteDb): { seq: number; hash: string } {
  return logHead(db) ?? { seq: 0, hash: GENESIS_HASH };
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
  /** Breaks a human accepted (`loopx log accept`): the seq of each log.accepted event the walk resumed at. */
  accepted?: number[];
}

const PAGE = 5000;

/**
 * Walks the chain in pages (bounded memory) and reports the first event whose link or hash is wrong. A break a
 * human accepted is passed over when the events before the acceptance are still exactly as they were accepted.
 */
export function verifyChain(db: SqliteDb, from?: { seq: number; hash: string }): VerifyResult {
  const total = Number(db.prepare('SELECT count(*) AS n FROM events').get()?.n ?? 0);
  // One string per event: the exact hash input (prevHash, newline, body), read back in pages.
  const page = db.prepare(
    `SELECT seq, hash, prev_hash || char(10) || ${SQL_EVENT_BODY} AS input FROM events WHERE seq > ? ORDER BY seq LIMIT ?`,
  );
  // `from`: an event already verified; only the ones after it are checked (a window verifying new events).
  let prevHash = from?.hash ?? GENESIS_HASH;
  let expectedSeq = (from?.seq ?? 0) + 1;
  const accepted: number[] = [];
  for (;;) {
    const rows = page.all(expectedSeq - 1, PAGE);
    if (rows.length === 0) break;
    let resumed = false;
    for (const row of rows) {
      const seq = Number(row.seq);
      let problem: string | null = null;
      let at = seq;
      const input = row.input as string;
      if (seq !== expectedSeq) [problem, at] = [`sequence gap: expected event ${expectedSeq}, found ${seq}`, expectedSeq];
      else if (!input.startsWith(prevHash) || input.charCodeAt(64) !== 10) problem = 'prevHash does not match the previous event';
      else if (sha256(input) !== row.hash && !rehashMatches(db, seq, prevHash)) problem = 'hash does not match the event content';
      if (problem !== null) {
        const acceptance = acceptanceCovering(db, at);
        if (!acceptance) return { ok: false, events: total, firstBadSeq: at, problem, ...(accepted.length ? { accepted } : {}) };
        accepted.push(acceptance.seq);
        prevHash = acceptance.prevHash;
        expectedSeq = acceptance.seq;
        resumed = true;
        break;
      }
      prevHash = row.hash as string;
      expectedSeq++;
    }
    if (resumed) continue;
  }
  return { ok: true, events: total, firstBadSeq: null, problem: null, ...(accepted.length ? { accepted } : {}) };
}

/** The first log.accepted event after `badSeq` whose record of the events before it still matches them. */
function acceptanceCovering(db: SqliteDb, badSeq: number): { seq: number; prevHash: string } | null {
  const row = db
    .prepare(`SELECT seq, prev_hash, data FROM events WHERE kind = 'log.accepted' AND seq > ? ORDER BY seq LIMIT 1`)
    .get(badSeq);
  if (!row) return null;
  const data = JSON.parse(String(row.data)) as { digest?: string };
  return data.digest === prefixDigest(db, Number(row.seq)) ? { seq: Number(row.seq), prevHash: String(row.prev_hash) } : null;
}

/** SHA-256 over every stored event before `beforeSeq` exactly as stored: what a human accepted, byte for byte. */
export function prefixDigest(db: SqliteDb, beforeSeq: number): string {
  const hash = nodeCrypto().createHash('sha256');
  const page = db.prepare(
    `SELECT seq, prev_hash || char(10) || ${SQL_EVENT_BODY} || char(10) || hash AS row FROM events WHERE seq > ? AND seq < ? ORDER BY seq LIMIT ?`,
  );
  let after = 0;
  for (;;) {
    const rows = page.all(after, beforeSeq, PAGE);
    if (rows.length === 0) break;
    for (const r of rows) hash.update(`${String(r.row)}\n`);
    after = Number(rows[rows.length - 1]?.seq);
  }
  return hash.digest('hex');
}

/** The careful path: rebuild the body in JavaScript exactly as the writer did. */
export function rehashMatches(db: SqliteDb, seq: number, prevHash: string): boolean {
  const row = db.prepare('SELECT * FROM events WHERE seq = ?').get(seq);
  if (!row) return false;
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
  return hash === row.hash;
}

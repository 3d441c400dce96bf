import type { SqliteDb, Row } from '../db/sqliteDb';
import type { Actor, EventDraft, EventKind, StoredEvent } from './eventTypes';
import { canonicalJson } from './canonical';
import { GENESIS_HASH, eventHash } from './hashChain';
import { logHead } from './anchor';
import { checkTail } from './verify';
import { withProof } from './proof';
import { type HumanKey, ensureHumanKey, humanKeyDir } from '../humanKey';
import { RefusedError } from '../errors';
import { refusePersonsPayload } from '../authority';
import type { Reducer } from './reducerKit';
import { hookReducers } from '../hooks/hookReducers';
import { todoReducers } from '../todos/todoReducers';
import { goalReducers } from '../goals/goalReducers';
import { gateReducers } from '../gates/gateReducers';
import { evidenceReducers } from '../evidence/evidenceReducers';
import { handoffReducers } from '../handoffs/handoffReducers';
import { monitorReducers } from '../monitors/monitorReducers';
import { turnReducers } from '../turns/turnReducers';
import { worktreeReducers } from '../worktrees/worktreeReducers';
import { teamReducers } from '../team/teamReducers';
import { priceReducers } from '../prices/priceReducers';
import { reviewReducers } from '../todos/reviewReducers';
import { limitSql } from '../db/limitSql';

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
    /** Asked once, before the first event chains onto the log's newest (null: an empty log); may refuse by throwing. */
    private readonly guard?: HeadGuard,
  ) {}

  /** Every event `emit` chained, in order: what the unit of work commits (its engine sends them on, or returns them). */
  readonly appended: StoredEvent[] = [];

  /** A unit of work's `emit` (unitOfWork.ts): the event appended, and kept in `appended`. */
  readonly emit = (draft: EventDraft, as?: Actor): StoredEvent => {
    const event = this.append(draft, as);
    this.appended.push(event);
    return event;
  };

  /** `as` attributes one event to another actor (a turn claims for its agent inside the starter's transaction). */
  append(draft: EventDraft, as: Actor = this.actor): StoredEvent {
    if (this.head === undefined) {
      // Before chaining onto the log, check its tail: a rewritten log is noticed before anyone acts on it.
      const broken = draft.kind === 'log.accepted' ? null : checkTail(this.db);
      if (broken) throw new TailBrokenError(broken);
      this.head = readHead(this.db, this.guard, draft);
    }
    const seq = this.head.seq + 1;
    const prevHash = this.head.hash;
    const actor = as;
    // Every operation asks its own rule first, in better words; this is the backstop, the list the team database keeps.
    refusePersonsPayload(this.db, actor, draft);
    // A human's channel is part of the record (and so of the hash): which way a decision came in.
    const decided = actor.kind === 'human' && actor.channel !== undefined;
    let payload: object = decided ? { ...draft.data, channel: actor.channel } : draft.data;
    const { at } = this;
    const fields = { seq, at, actor: actor.name, actorKind: actor.kind, kind: draft.kind, goalId: draft.goalId, todoId: draft.todoId };
    // A person's decision carries a proof under the per-user key an agent cannot read (proof.ts), inside the hashed data.
    if (decided) payload = withProof(this.humanKey(), prevHash, { ...fields, data: canonicalJson(payload) }, payload);
    const data = canonicalJson(payload);
    const hash = eventHash(prevHash, { ...fields, data });
    const event = { ...draft, data: payload, seq, at, actor: actor.name, actorKind: actor.kind, prevHash, hash } as StoredEvent;
    applyReducer(this.db, event);
    insertEventRow(this.db, event, data);
    this.head = { seq, hash };
    this.seen.set(actor.name, actor);
    return event;
  }

  private key: HumanKey | undefined;
  private humanKey(): HumanKey {
    if (this.key) return this.key;
    try {
      this.key = ensureHumanKey();
    } catch (error) {
      throw new RefusedError(
        'human_key_unavailable',
        `a person's decision needs the key that proves it, and loopx could not make or read it: ${(error as Error).message}`,
        `make ${humanKeyDir()} a folder you can write (or set LOOPX_CONFIG_DIR to one outside every workspace), then try again`,
      );
    }
    return this.key;
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

/** The log's newest event as a guard sees it: its seq and kind (a guard that needs more reads it by seq). */
export interface HeadEvent {
  seq: number;
  kind: string;
}
export type HeadGuard = (head: HeadEvent | null, draft: EventDraft) => void;

function readHead(db: SqliteDb, guard: HeadGuard | undefined, draft: EventDraft): { seq: number; hash: string } {
  if (!guard) return logHead(db) ?? { seq: 0, hash: GENESIS_HASH };
  // The same one-row read, with the kind: no extra query on the write path (about 1 µs more than logHead's).
  const row = db.prepare('SELECT seq, hash, kind FROM events ORDER BY seq DESC LIMIT 1').get();
  guard(row ? { seq: Number(row.seq), kind: String(row.kind) } : null, draft);
  return row ? { seq: Number(row.seq), hash: String(row.hash) } : { seq: 0, hash: GENESIS_HASH };
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

/** The newest events first: the store's, a goal's or a todo's. */
export function history(db: SqliteDb, filter: { goalId?: string; todoId?: string; limit?: number } = {}): StoredEvent[] {
  const limit = limitSql(Math.max(1, Math.min(filter.limit ?? 50, 100_000)));
  const rows = filter.todoId
    ? db.prepare(`SELECT * FROM events WHERE todo_id = ? ORDER BY seq DESC ${limit}`).all(filter.todoId)
    : filter.goalId
      ? db.prepare(`SELECT * FROM events WHERE goal_id = ? ORDER BY seq DESC ${limit}`).all(filter.goalId)
      : db.prepare(`SELECT * FROM events ORDER BY seq DESC ${limit}`).all();
  return rows.map(rowToEvent);
}

type Reducers = { [K in EventKind]: Reducer<K> };

/**
 * The only code that writes state tables: each noun's reducers (todos/todoReducers.ts, …), one per event kind.
 * Kernel operations and replay both go through this table, which is what makes "replaying the log reproduces the
 * state" true by construction.
 */
const reducers: Reducers = {
  'store.initialized': () => {},
  'log.accepted': () => {},
  'log.set_aside_handled': (db, e) => {
    db.prepare(
      `INSERT INTO set_aside_handled (seq, decided_seq, decided_by, decision, at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (seq) DO UPDATE SET decided_seq = excluded.decided_seq, decided_by = excluded.decided_by,
          decision = excluded.decision, at = excluded.at`,
    ).run(e.data.seq, e.seq, e.actor, e.data.decision, e.at);
  },
  ...goalReducers,
  ...todoReducers,
  ...gateReducers,
  ...evidenceReducers,
  ...handoffReducers,
  ...monitorReducers,
  ...turnReducers,
  ...hookReducers,
  ...worktreeReducers,
  ...teamReducers,
  ...priceReducers,
  ...reviewReducers,
};

/** Each noun's table by name, for the test that no event kind is reduced by two nouns (a later spread would win). */
export const NOUN_REDUCERS: Record<string, object> = {
  goalReducers,
  todoReducers,
  gateReducers,
  evidenceReducers,
  handoffReducers,
  monitorReducers,
  turnReducers,
  hookReducers,
  worktreeReducers,
  teamReducers,
  priceReducers,
  reviewReducers,
};

function agentKind(actor: string, actorKind: StoredEvent['actorKind']): string {
  if (actorKind === 'human') return 'human';
  const name = actor.toLowerCase();
  if (name.startsWith('codex')) return 'codex';
  if (name.startsWith('claude')) return 'claude';
  return 'custom';
}

/** The state change of one event, without the agent bookkeeping. */
export function applyReducer(db: SqliteDb, e: StoredEvent): void {
  (reducers[e.kind] as Reducer<EventKind>)(db, e as never);
}

/** Records that an agent or human acted at `at`. Idempotent for equal (actor, at), so once per transaction is enough. */
export function touchAgent(db: SqliteDb, actor: string, actorKind: StoredEvent['actorKind'], at: string): void {
  if (actorKind === 'kernel') return;
  db.prepare(
    `INSERT INTO agents (name, kind, first_seen, last_seen) VALUES (?, ?, ?, ?)
      ON CONFLICT (name) DO UPDATE SET last_seen = excluded.last_seen`,
  ).run(actor, agentKind(actor, actorKind), at, at);
}

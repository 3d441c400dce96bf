import type { SqliteDb } from '../../src/kernel/db/sqliteDb';
import type { EventDraft, StoredEvent } from '../../src/kernel/events/eventTypes';
import { canonicalJson } from '../../src/kernel/events/canonical';
import { eventHash } from '../../src/kernel/events/hashChain';
import { applyEvent } from '../../src/kernel/events/setAside';

/**
 * Test support, never used by product code: what an agent that can write `.loopx/loopx.db` does with sqlite3 and
 * sha256sum. It appends a correctly chained event in a person's name with raw SQL and mirrors its reducer's update,
 * with no key: the attack the proof on a person's decisions answers (decisions.ts).
 */
export function forgeEvent(
  db: SqliteDb,
  draft: EventDraft,
  options: {
    at: string;
    actor?: string;
    actorKind?: string;
    channel?: string | null;
    proof?: { key: string; mac: string };
    /** false: append only, mirroring nothing (an event whose reducer would refuse it: setAside.test.ts). */
    mirror?: boolean;
  },
): number {
  const head = db.prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1').get();
  const seq = Number(head?.seq ?? 0) + 1;
  const prevHash = String(head?.hash ?? '0'.repeat(64));
  const actor = options.actor ?? 'ada';
  const actorKind = options.actorKind ?? 'human';
  const channel = options.channel === undefined ? 'vscode' : options.channel;
  const payload = { ...draft.data, ...(channel ? { channel } : {}), ...(options.proof ? { proof: options.proof } : {}) };
  const data = canonicalJson(payload);
  const fields = { seq, at: options.at, actor, actorKind, kind: draft.kind, goalId: draft.goalId, todoId: draft.todoId, data };
  const hash = eventHash(prevHash, fields);
  db.exec('BEGIN IMMEDIATE');
  try {
    if (options.mirror !== false)
      applyEvent(db, { ...draft, data: payload, seq, at: options.at, actor, actorKind, prevHash, hash } as StoredEvent);
    db.prepare(
      `INSERT INTO events (seq, at, actor, actor_kind, kind, goal_id, todo_id, data, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(seq, options.at, actor, actorKind, draft.kind, draft.goalId, draft.todoId, data, prevHash, hash);
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
  return seq;
}

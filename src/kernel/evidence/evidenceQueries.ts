import type { SqliteDb } from '../db/sqliteDb';
import type { Artifact, EventData, StoredEvent } from '../events/eventTypes';
import { rowToEvent } from '../events/log';
import { ranSentence } from '../../shared/timeWords';
import { limitSql } from '../db/limitSql';

export interface Evidence {
  seq: number;
  at: string;
  actor: string;
  actorKind: string;
  goalId: string;
  todoId: string | null;
  summary: string;
  kind: string;
  artifacts: Artifact[];
  /** `kernel`: loopx ran the command itself (see `run`); `agent`: what an agent (or a person) wrote. */
  source: 'agent' | 'kernel';
  run: KernelRun | null;
  /** Added after its todo shipped. */
  afterShip: boolean;
}

/** A command the kernel ran for evidence: exactly what ran, how it ended, and what it printed (tail and hash). */
export type KernelRun = NonNullable<EventData<'evidence'>['run']>;

export function evidenceFromEvent(e: StoredEvent): Evidence {
  if (e.kind !== 'evidence') throw new Error(`event ${e.seq} is not evidence`);
  return {
    seq: e.seq,
    at: e.at,
    actor: e.actor,
    actorKind: e.actorKind,
    goalId: e.goalId ?? '',
    todoId: e.todoId,
    summary: e.data.summary,
    kind: e.data.kind,
    artifacts: e.data.artifacts,
    source: e.data.source ?? 'agent',
    run: e.data.run ?? null,
    afterShip: e.data.afterShip === true,
  };
}

/** One evidence entry by its event number, with the event's hash (what a reader checks against the log), or null. */
export function evidenceBySeq(db: SqliteDb, seq: number): { evidence: Evidence; hash: string } | null {
  const row = db.prepare(`SELECT * FROM events WHERE seq = ? AND kind = 'evidence'`).get(seq);
  if (!row) return null;
  const event = rowToEvent(row);
  return { evidence: evidenceFromEvent(event), hash: event.hash };
}

/** Evidence newest first, for a goal, a todo, or everything. */
export function listEvidence(db: SqliteDb, filter: { goalId?: string; todoId?: string; limit?: number }): Evidence[] {
  const limit = limitSql(filter.limit ?? 1000);
  const rows = filter.todoId
    ? db.prepare(`SELECT * FROM events WHERE todo_id = ? AND kind = 'evidence' ORDER BY seq DESC ${limit}`).all(filter.todoId)
    : filter.goalId
      ? db.prepare(`SELECT * FROM events WHERE goal_id = ? AND kind = 'evidence' ORDER BY seq DESC ${limit}`).all(filter.goalId)
      : db.prepare(`SELECT * FROM events WHERE kind = 'evidence' ORDER BY seq DESC ${limit}`).all();
  return rows.map((row) => evidenceFromEvent(rowToEvent(row)));
}

/** "ran `npm test`: exit 0 in 41 s" — what a kernel run showed, in words. */
export function describeRun(run: KernelRun): string {
  return ranSentence(run);
}

/**
 * The newest kernel run of `check` recorded for a todo after event `afterSeq` (its last claim), or null: what
 * `todo ship` asks of a todo that has an acceptance check.
 */
export function latestCheckRun(db: SqliteDb, todoId: string, check: string, afterSeq: number): (KernelRun & { seq: number }) | null {
  const rows = db
    .prepare(`SELECT seq, data FROM events WHERE todo_id = ? AND kind = 'evidence' AND seq > ? ORDER BY seq DESC`)
    .all(todoId, afterSeq);
  for (const row of rows) {
    const data = JSON.parse(String(row.data)) as EventData<'evidence'>;
    if (data.source === 'kernel' && data.run?.check === check) return { ...data.run, seq: Number(row.seq) };
  }
  return null;
}

/** The event that gave the todo its current claim (a claim or an accepted handoff), 0 when never claimed. */
export function lastClaimSeq(db: SqliteDb, todoId: string): number {
  const row = db
    .prepare(`SELECT max(seq) AS seq FROM events WHERE todo_id = ? AND kind IN ('todo.claimed', 'handoff.accepted')`)
    .get(todoId);
  return Number(row?.seq ?? 0);
}

/** A turn's evidence: how much is the agent's word, and which commands the kernel ran (and how they ended). */
export function turnEvidence(
  db: SqliteDb,
  turn: { startSeq: number; endSeq?: number | null; todoId: string | null; goalId: string; agent: string },
): { agent: number; kernel: KernelRun[] } {
  const rows = db
    .prepare(
      `SELECT * FROM events WHERE seq > ? AND seq <= ? AND kind = 'evidence' AND actor = ? AND (todo_id = ? OR (goal_id = ? AND todo_id IS NULL)) ORDER BY seq`,
    )
    .all(turn.startSeq, turn.endSeq ?? Number.MAX_SAFE_INTEGER, turn.agent, turn.todoId, turn.goalId);
  const items = rows.map((row) => evidenceFromEvent(rowToEvent(row)));
  return { agent: items.filter((e) => e.source === 'agent').length, kernel: items.flatMap((e) => (e.run ? [e.run] : [])) };
}

export function evidenceCount(db: SqliteDb, todoId: string): number {
  return Number(db.prepare('SELECT evidence_count AS n FROM todos WHERE id = ?').get(todoId)?.n ?? 0);
}

import type { SqliteDb } from '../db/sqliteDb';
import type { Artifact, StoredEvent } from '../events/eventTypes';
import { rowToEvent } from '../events/log';

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
}

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
  };
}

/** Evidence newest first, for a goal, a todo, or everything. */
export function listEvidence(db: SqliteDb, filter: { goalId?: string; todoId?: string; limit?: number }): Evidence[] {
  const limit = filter.limit ?? 1000;
  const rows = filter.todoId
    ? db.prepare(`SELECT * FROM events WHERE todo_id = ? AND kind = 'evidence' ORDER BY seq DESC LIMIT ?`).all(filter.todoId, limit)
    : filter.goalId
      ? db.prepare(`SELECT * FROM events WHERE goal_id = ? AND kind = 'evidence' ORDER BY seq DESC LIMIT ?`).all(filter.goalId, limit)
      : db.prepare(`SELECT * FROM events WHERE kind = 'evidence' ORDER BY seq DESC LIMIT ?`).all(limit);
  return rows.map((row) => evidenceFromEvent(rowToEvent(row)));
}

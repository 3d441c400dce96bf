import { rowReader } from '../rowReader';
import type { Row, SqliteDb } from '../db/sqliteDb';
import type { Finding, Todo } from '../model';

/** One round of a todo's review as the store keeps it (`reviews`): what was submitted and the verdict that ended it. */
export interface ReviewRound {
  todoId: string;
  round: number;
  implementer: string;
  implementerHost: string | null;
  submittedAt: string;
  scope: { base: string | null; head: string | null; diffHash: string | null; files: string[] };
  validation: string;
  reviewer: string | null;
  reviewerHost: string | null;
  verdict: 'approve' | 'request_changes' | 'could_not_review' | null;
  summary: string | null;
  findings: Finding[];
  decidedAt: string | null;
  byPerson: boolean;
}

export function roundFromRow(row: Row): ReviewRound {
  const r = rowReader('reviews', row);
  return {
    todoId: r.text('todo_id'),
    round: r.int('round'),
    implementer: r.text('implementer'),
    implementerHost: r.maybeText('implementer_host'),
    submittedAt: r.text('submitted_at'),
    scope: JSON.parse(r.text('scope')) as ReviewRound['scope'],
    validation: r.text('validation'),
    reviewer: r.maybeText('reviewer'),
    reviewerHost: r.maybeText('reviewer_host'),
    verdict: r.maybeText('verdict') as ReviewRound['verdict'],
    summary: r.maybeText('summary'),
    findings: JSON.parse(r.text('findings')) as ReviewRound['findings'],
    decidedAt: r.maybeText('decided_at'),
    byPerson: r.int('by_person') === 1,
  };
}

/** A todo's round `round`, or null (never submitted). */
export function reviewRound(db: SqliteDb, todoId: string, round: number): ReviewRound | null {
  const row = db.prepare('SELECT * FROM reviews WHERE todo_id = ? AND round = ?').get(todoId, round);
  return row ? roundFromRow(row) : null;
}

/** Every round of a todo's review, the first first. */
export function reviewRounds(db: SqliteDb, todoId: string): ReviewRound[] {
  return db.prepare('SELECT * FROM reviews WHERE todo_id = ? ORDER BY round').all(todoId).map(roundFromRow);
}

/** Whether todo `todoId`'s change is reviewed: its goal asks, or the todo itself (one statement: every agent's ship asks). */
export function reviewAsked(db: SqliteDb, todoId: string): boolean {
  return (
    db
      .prepare('SELECT g.review IS NOT NULL OR t.review = 1 AS on_ FROM todos t JOIN goals g ON g.id = t.goal_id WHERE t.id = ?')
      .get(todoId)?.on_ === 1
  );
}

/** The host of `agent`'s open turn on the todo (its implementer's at a submission, its reviewer's at a verdict), or null. */
export function openTurnHost(db: SqliteDb, todoId: string, agent: string): string | null {
  const row = db
    .prepare('SELECT host FROM turns WHERE todo_id = ? AND agent = ? AND ended_at IS NULL ORDER BY num DESC LIMIT 1')
    .get(todoId, agent);
  return row ? String(row.host) : null;
}

/** Whether any of the goal's changes is in review (its kept counts: no walk of its todos). */
export function hasChangesInReview(db: SqliteDb, goalId: string): boolean {
  return db.prepare(`SELECT 1 FROM todo_counts WHERE goal_id = ? AND status = 'in_review' AND n > 0`).get(goalId) !== undefined;
}

/** A reviewer holds the todo's review, its lease live (the review's own lease rule, as `leaseLive` is a claim's). */
export function reviewLive(todo: Pick<Todo, 'status' | 'owner' | 'leaseExpiresAt'>, at: string): boolean {
  return todo.status === 'in_review' && todo.owner !== null && todo.leaseExpiresAt !== null && todo.leaseExpiresAt > at;
}

/**
 * The goal's todos waiting for a review now, first submitted first: in review, no live review claim, no pending gate,
 * no open turn (`busy`), and not implemented by `agent` (a reviewer never reviews its own change).
 */
export function reviewableIds(db: SqliteDb, goalId: string, at: string, agent: string, busy: readonly string[] = []): string[] {
  return db
    .prepare(
      `SELECT t.id FROM todos t WHERE t.goal_id = ? AND t.status = 'in_review'
        AND (t.owner IS NULL OR t.lease_expires_at <= ?) AND t.implementer IS NOT ?
        AND NOT EXISTS (SELECT 1 FROM gates g WHERE g.todo_id = t.id AND g.status = 'pending')
        ORDER BY t.updated_at, t.num`,
    )
    .all(goalId, at, agent)
    .map((r) => String(r.id))
    .filter((id) => !busy.includes(id));
}

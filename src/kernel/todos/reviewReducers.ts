import { type ReducersOf, CLEAR_LEASE, touchTodo } from '../events/reducerKit';
import { canonicalJson } from '../events/canonical';
import type { SqliteDb } from '../db/sqliteDb';

type ReviewKind =
  'todo.submitted' | 'todo.review_claimed' | 'todo.review_released' | 'todo.approved' | 'todo.changes_requested' | 'todo.review_unable';

/** A round's verdict, written on its row of `reviews`. */
function recordVerdict(
  db: SqliteDb,
  e: { actor: string; at: string; todoId: string | null; data: { host: string | null; round: number } },
  verdict: 'approve' | 'request_changes' | 'could_not_review',
  summary: string,
  findings: readonly unknown[],
  byPerson: boolean,
): void {
  db.prepare(
    `UPDATE reviews SET reviewer = ?, reviewer_host = ?, verdict = ?, summary = ?, findings = ?, decided_at = ?, by_person = ?
      WHERE todo_id = ? AND round = ?`,
  ).run(e.actor, e.data.host, verdict, summary, canonicalJson(findings), e.at, byPerson ? 1 : 0, e.todoId, e.data.round);
}

/** The state changes of review events, spread into the kernel's reducers (events/log.ts). */
export const reviewReducers: ReducersOf<ReviewKind> = {
  'todo.submitted': (db, e) => {
    touchTodo(db, e.todoId, e.at, `status = 'in_review', ${CLEAR_LEASE}, implementer = ?, review_round = ?`, [e.actor, e.data.round]);
    db.prepare(
      `INSERT INTO reviews (todo_id, round, goal_id, implementer, implementer_host, submitted_at, scope, validation)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(e.todoId, e.data.round, e.goalId, e.actor, e.data.host, e.at, canonicalJson(e.data.scope), e.data.validation);
  },
  'todo.review_claimed': (db, e) =>
    touchTodo(db, e.todoId, e.at, 'owner = ?, lease_token = ?, lease_expires_at = ?', [
      e.data.owner,
      e.data.leaseToken,
      e.data.leaseExpiresAt,
    ]),
  'todo.review_released': (db, e) => touchTodo(db, e.todoId, e.at, CLEAR_LEASE, []),
  'todo.approved': (db, e) => {
    touchTodo(db, e.todoId, e.at, `status = 'shipped', ${CLEAR_LEASE}`, []);
    recordVerdict(db, e, 'approve', e.data.summary, e.data.findings, e.data.byPerson);
  },
  'todo.changes_requested': (db, e) => {
    // The comments are the implementer's continuation: its next turn starts from them.
    touchTodo(db, e.todoId, e.at, `status = 'open', ${CLEAR_LEASE}, continuation = ?`, [
      changesWords(e.actor, e.data.summary, e.data.findings),
    ]);
    recordVerdict(db, e, 'request_changes', e.data.summary, e.data.findings, e.data.byPerson);
  },
  'todo.review_unable': (db, e) => {
    touchTodo(db, e.todoId, e.at, CLEAR_LEASE, []);
    recordVerdict(db, e, 'could_not_review', e.data.reason, [], false);
  },
};

interface FindingWords {
  severity: string;
  file: string | null;
  line: number | null;
  title: string;
  body: string;
}

/** What the implementer's next turn reads: who asked for changes, their summary, each finding with its place. */
function changesWords(reviewer: string, summary: string, findings: readonly FindingWords[]): string {
  const lines = [`Review by ${reviewer} asked for changes: ${summary}`];
  for (const f of findings) {
    const place = f.file ? ` (${f.file}${f.line !== null ? `:${f.line}` : ''})` : '';
    lines.push(`- ${f.severity} ${f.title}${place}${f.body ? `: ${f.body}` : ''}`);
  }
  return lines.join('\n');
}

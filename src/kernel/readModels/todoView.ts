import type { SqliteDb } from '../db/sqliteDb';
import type { Gate, Goal, Todo } from '../model';
import { gateFromRow } from '../model';
import { iso } from '../time';
import { type Evidence, listEvidence } from '../evidence/evidenceQueries';
import { type Monitor, waitingMonitor } from '../monitors/monitorQueries';
import { type Readiness, readiness, getTodo } from '../todos/todoQueries';
import { getGoal } from '../goals/goalQueries';
import { limitSql } from '../db/limitSql';

/** One line of a todo's history: what happened, when, and who did it (`loopx history --todo` has the data). */
export interface HistoryLine {
  seq: number;
  at: string;
  actor: string;
  kind: string;
}

/** Everything about one todo an agent needs before it works on it, in one snapshot, each list bounded. */
export interface TodoView {
  todo: Todo;
  goal: Pick<Goal, 'id' | 'title' | 'status'>;
  /** What shipping takes: the todo's detail (its acceptance text) and the check that must pass, if any. */
  acceptance: { detail: string; check: string | null; checkFrom: 'todo' | 'goal' | null };
  readiness: Readiness;
  /** Newest first; `moreEvidence` counts the older ones left out. */
  evidence: Evidence[];
  moreEvidence: number;
  /** Every gate asked on the todo, pending first. */
  gates: Gate[];
  /** The monitor the todo waits on, or null. */
  monitor: Monitor | null;
  /** Newest first; `moreHistory` counts the older events left out. */
  history: HistoryLine[];
  moreHistory: number;
}

export function todoView(db: SqliteDb, todoId: string, nowMs: number, limits: { evidence: number; history: number }): TodoView {
  const todo = getTodo(db, todoId);
  const goal = getGoal(db, todo.goalId);
  const check = todo.check ?? goal.check;
  const evidence = listEvidence(db, { todoId, limit: limits.evidence });
  const history = db
    .prepare(`SELECT seq, at, actor, kind FROM events WHERE todo_id = ? ORDER BY seq DESC ${limitSql(limits.history)}`)
    .all(todoId)
    .map((r) => ({ seq: Number(r.seq), at: String(r.at), actor: String(r.actor), kind: String(r.kind) }));
  const events = Number(db.prepare('SELECT count(*) AS n FROM events WHERE todo_id = ?').get(todoId)?.n ?? 0);
  return {
    todo,
    goal: { id: goal.id, title: goal.title, status: goal.status },
    acceptance: { detail: todo.detail, check, checkFrom: todo.check !== null ? 'todo' : goal.check !== null ? 'goal' : null },
    readiness: readiness(db, todo, iso(nowMs)),
    evidence,
    moreEvidence: Math.max(0, todo.evidenceCount - evidence.length),
    gates: db.prepare(`SELECT * FROM gates WHERE todo_id = ? ORDER BY status <> 'pending', num DESC`).all(todoId).map(gateFromRow),
    monitor: waitingMonitor(db, todoId),
    history,
    moreHistory: Math.max(0, events - history.length),
  };
}

import type { SqliteDb } from '../db/sqliteDb';
import { type Todo, TODO_COLUMNS, TODO_EVIDENCE_COUNT, todoFromRow } from '../model';
import { leaseLive } from './lookups';

/**
 * Claimable = open (or claimed with a lapsed lease), goal active, every dependency shipped, no pending gate.
 * Order: priority (0 first), then the order todos were added.
 */
export const CLAIMABLE_WHERE = `
  (t.status = 'open' OR (t.status = 'claimed' AND t.lease_expires_at <= ?))
  AND EXISTS (SELECT 1 FROM goals g WHERE g.id = t.goal_id AND g.status = 'active')
  AND NOT EXISTS (SELECT 1 FROM todo_deps d JOIN todos dt ON dt.id = d.depends_on WHERE d.todo_id = t.id AND dt.status <> 'shipped')
  AND NOT EXISTS (SELECT 1 FROM gates q WHERE q.todo_id = t.id AND q.status = 'pending')`;

export function nextClaimable(db: SqliteDb, at: string, goalId?: string): Todo | null {
  const row = goalId
    ? db.prepare(`SELECT ${TODO_COLUMNS}, ${TODO_EVIDENCE_COUNT} FROM todos t WHERE t.goal_id = ? AND ${CLAIMABLE_WHERE}
        ORDER BY t.priority, t.num LIMIT 1`).get(goalId, at)
    : db.prepare(`SELECT ${TODO_COLUMNS}, ${TODO_EVIDENCE_COUNT} FROM todos t WHERE ${CLAIMABLE_WHERE}
        ORDER BY t.priority, t.num LIMIT 1`).get(at);
  return row ? todoFromRow(row) : null;
}

export function hasClaimable(db: SqliteDb, at: string, goalId: string): boolean {
  return db.prepare(`SELECT 1 FROM todos t WHERE t.goal_id = ? AND ${CLAIMABLE_WHERE} LIMIT 1`).get(goalId, at) !== undefined;
}

export type Readiness =
  | { ready: true }
  | { ready: false; why: 'terminal' | 'claimed' | 'blocked' | 'goal_inactive' | 'dependencies' | 'gate_pending'; detail: string; ids: string[] };

/** Explains why a todo can or cannot be claimed now (used in refusals and by the board's Waiting column). */
export function readiness(db: SqliteDb, todo: Todo, at: string): Readiness {
  if (todo.status === 'shipped' || todo.status === 'killed') {
    return { ready: false, why: 'terminal', detail: `it is ${todo.status}`, ids: [] };
  }
  if (todo.status === 'blocked') return { ready: false, why: 'blocked', detail: `it is blocked: ${todo.reason ?? ''}`, ids: [] };
  if (leaseLive(todo, at)) {
    return { ready: false, why: 'claimed', detail: `it is claimed by ${todo.owner} until ${todo.leaseExpiresAt}`, ids: [] };
  }
  const goal = db.prepare('SELECT status FROM goals WHERE id = ?').get(todo.goalId);
  if (goal?.status !== 'active') {
    return { ready: false, why: 'goal_inactive', detail: `its goal ${todo.goalId} is ${String(goal?.status)}`, ids: [todo.goalId] };
  }
  const waiting = db
    .prepare(
      `SELECT dt.id, dt.status FROM todo_deps d JOIN todos dt ON dt.id = d.depends_on
        WHERE d.todo_id = ? AND dt.status <> 'shipped' ORDER BY dt.num`,
    )
    .all(todo.id);
  if (waiting.length > 0) {
    const list = waiting.map((r) => `${String(r.id)} (${String(r.status)})`).join(', ');
    return { ready: false, why: 'dependencies', detail: `it depends on unshipped ${list}`, ids: waiting.map((r) => String(r.id)) };
  }
  const gates = db.prepare(`SELECT id FROM gates WHERE todo_id = ? AND status = 'pending' ORDER BY num`).all(todo.id);
  if (gates.length > 0) {
    const ids = gates.map((r) => String(r.id));
    return { ready: false, why: 'gate_pending', detail: `gate ${ids.join(', ')} awaits a human decision`, ids };
  }
  return { ready: true };
}

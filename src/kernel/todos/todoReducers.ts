import { type ReducersOf, CLEAR_LEASE, touchTodo } from '../events/reducerKit';
import { canonicalJson } from '../events/canonical';

type TodoKind =
  | 'todo.added'
  | 'todo.check_set'
  | 'todo.edited'
  | 'todo.claimed'
  | 'todo.renewed'
  | 'todo.released'
  | 'todo.shipped'
  | 'todo.blocked'
  | 'todo.unblocked'
  | 'todo.killed';

/** The state changes of todo events, spread into the kernel's reducers (events/log.ts). */
export const todoReducers: ReducersOf<TodoKind> = {
  'todo.added': (db, e) => {
    const d = e.data;
    db.prepare(
      `INSERT INTO todos (id, num, goal_id, title, detail, priority, status, continuation, depends_on, evidence_count, revision,
        check_command, recurrence, ready_at, previous_id, created_at, updated_at, key, review) VALUES (?, ?, ?, ?, ?, ?, 'open', '', ?, 0, 1, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      d.id,
      d.num,
      e.goalId,
      d.title,
      d.detail,
      d.priority,
      d.dependsOn.join(','),
      d.check ?? null,
      d.recurrence ? canonicalJson(d.recurrence) : null,
      d.readyAt ?? null,
      d.previous ?? null,
      e.at,
      e.at,
      d.key ?? null,
      d.review ? 1 : 0,
    );
    const dep = db.prepare('INSERT INTO todo_deps (todo_id, depends_on) VALUES (?, ?)');
    for (const dependsOn of d.dependsOn) dep.run(d.id, dependsOn);
  },
  'todo.check_set': (db, e) => touchTodo(db, e.todoId, e.at, 'check_command = ?', [e.data.check]),
  'todo.edited': (db, e) => {
    const { title, detail, priority, dependsOn } = e.data;
    // Named, not spread: event data also carries who decided (a human's channel), which is no column.
    const fields: Record<string, string | number | undefined> = { title, detail, priority, depends_on: dependsOn?.join(',') };
    const sets = Object.entries(fields).filter(([, v]) => v !== undefined);
    touchTodo(
      db,
      e.todoId,
      e.at,
      sets.map(([k]) => `${k} = ?`).join(', ') || 'revision = revision',
      sets.map(([, v]) => v as string | number),
    );
    if (dependsOn) {
      db.prepare('DELETE FROM todo_deps WHERE todo_id = ?').run(e.todoId);
      const dep = db.prepare('INSERT INTO todo_deps (todo_id, depends_on) VALUES (?, ?)');
      for (const id of dependsOn) dep.run(e.todoId, id);
    }
  },
  'todo.claimed': (db, e) =>
    touchTodo(db, e.todoId, e.at, `status = 'claimed', owner = ?, lease_token = ?, lease_expires_at = ?, reason = NULL`, [
      e.data.owner,
      e.data.leaseToken,
      e.data.leaseExpiresAt,
    ]),
  'todo.renewed': (db, e) => touchTodo(db, e.todoId, e.at, 'lease_expires_at = ?', [e.data.leaseExpiresAt]),
  'todo.released': (db, e) =>
    touchTodo(db, e.todoId, e.at, `status = 'open', ${CLEAR_LEASE}, continuation = coalesce(?, continuation)`, [e.data.note]),
  'todo.shipped': (db, e) => touchTodo(db, e.todoId, e.at, `status = 'shipped', ${CLEAR_LEASE}`, []),
  'todo.blocked': (db, e) => touchTodo(db, e.todoId, e.at, `status = 'blocked', ${CLEAR_LEASE}, reason = ?`, [e.data.reason]),
  'todo.unblocked': (db, e) =>
    touchTodo(db, e.todoId, e.at, `status = 'open', reason = NULL, continuation = coalesce(?, continuation)`, [e.data.note]),
  'todo.killed': (db, e) => {
    touchTodo(db, e.todoId, e.at, `status = 'killed', ${CLEAR_LEASE}, reason = ?`, [e.data.reason]);
    const cancel = db.prepare(
      `UPDATE gates SET status = 'cancelled', decided_by = ?, decided_at = ?, note = ? WHERE id = ? AND status = 'pending'`,
    );
    for (const gateId of e.data.cancelledGates) cancel.run(e.actor, e.at, `todo killed: ${e.data.reason}`, gateId);
  },
};

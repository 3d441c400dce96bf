import { type ReducersOf } from '../events/reducerKit';

type GateKind = 'gate.asked' | 'gate.decided';

/** The state changes of gate events, spread into the kernel's reducers (events/log.ts). */
export const gateReducers: ReducersOf<GateKind> = {
  'gate.asked': (db, e) => {
    db.prepare(
      `INSERT INTO gates (id, num, goal_id, todo_id, question, status, asked_by, asked_at) VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)`,
    ).run(e.data.id, e.data.num, e.goalId, e.todoId, e.data.question, e.actor, e.at);
  },
  'gate.decided': (db, e) => {
    db.prepare('UPDATE gates SET status = ?, decided_by = ?, decided_at = ?, note = ? WHERE id = ?').run(
      e.data.status,
      e.actor,
      e.at,
      e.data.note,
      e.data.id,
    );
  },
};

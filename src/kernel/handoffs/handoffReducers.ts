import { type ReducersOf, touchTodo } from '../events/reducerKit';

type HandoffKind = 'handoff.offered' | 'handoff.accepted';

/** The state changes of handoff events, spread into the kernel's reducers (events/log.ts). */
export const handoffReducers: ReducersOf<HandoffKind> = {
  'handoff.offered': (db, e) => {
    const d = e.data;
    const supersede = db.prepare(`UPDATE handoffs SET status = 'superseded' WHERE id = ?`);
    for (const id of d.supersedes) supersede.run(id);
    db.prepare(
      `INSERT INTO handoffs (id, num, todo_id, from_agent, to_agent, summary, done, pending, permissions, status, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'offered', ?)`,
    ).run(d.id, d.num, e.todoId, e.actor, d.to, d.summary, d.done, d.pending, JSON.stringify(d.permissions), e.at);
  },
  'handoff.accepted': (db, e) => {
    db.prepare(`UPDATE handoffs SET status = 'accepted', accepted_at = ? WHERE id = ?`).run(e.at, e.data.id);
    const handoff = db.prepare('SELECT summary, pending FROM handoffs WHERE id = ?').get(e.data.id);
    const continuation =
      `Handoff from ${e.data.from}: ${String(handoff?.summary ?? '')}` +
      (handoff?.pending ? `\nStill to do: ${String(handoff.pending)}` : '');
    touchTodo(db, e.todoId, e.at, `status = 'claimed', owner = ?, lease_token = ?, lease_expires_at = ?, reason = NULL, continuation = ?`, [
      e.actor,
      e.data.leaseToken,
      e.data.leaseExpiresAt,
      continuation,
    ]);
  },
};

import { type ReducersOf } from '../events/reducerKit';
import { canonicalJson } from '../events/canonical';

type GoalKind =
  | 'goal.created'
  | 'goal.check_set'
  | 'goal.status'
  | 'goal.edited'
  | 'goal.file_applied'
  | 'quota.spent'
  | 'goal.host_set'
  | 'goal.review_set';

const GOAL_COLUMN: Record<string, string> = {
  title: 'title',
  objective: 'objective',
  scope: 'scope',
  turnsPerWindow: 'turns_per_window',
  windowHours: 'window_hours',
  maxConcurrent: 'max_concurrent',
  cooldownSeconds: 'cooldown_seconds',
  tokensPerWindow: 'tokens_per_window',
  dollarsPerWindow: 'dollars_per_window',
  background: 'background',
};

/** The state changes of goal and quota events, spread into the kernel's reducers (events/log.ts). */
export const goalReducers: ReducersOf<GoalKind> = {
  'goal.created': (db, e) => {
    const d = e.data;
    db.prepare(
      `INSERT INTO goals (id, num, title, objective, scope, status, turns_per_window, window_hours, max_concurrent,
        cooldown_seconds, tokens_per_window, dollars_per_window, check_command, created_at, updated_at, review)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      d.id,
      d.num,
      d.title,
      d.objective,
      JSON.stringify(d.scope),
      d.status ?? 'active',
      d.turnsPerWindow,
      d.windowHours,
      d.maxConcurrent,
      d.cooldownSeconds,
      d.tokensPerWindow ?? null,
      d.dollarsPerWindow ?? null,
      d.check ?? null,
      e.at,
      e.at,
      d.review ? canonicalJson(d.review) : null,
    );
  },
  'goal.check_set': (db, e) => {
    db.prepare('UPDATE goals SET check_command = ?, updated_at = ? WHERE id = ?').run(e.data.check, e.at, e.goalId);
  },
  'goal.review_set': (db, e) => {
    const review = e.data.review === null ? null : canonicalJson(e.data.review);
    db.prepare('UPDATE goals SET review = ?, updated_at = ? WHERE id = ?').run(review, e.at, e.goalId);
  },
  'goal.host_set': (db, e) => {
    db.prepare('UPDATE goals SET host = ?, updated_at = ? WHERE id = ?').run(e.data.host, e.at, e.goalId);
  },
  'goal.status': (db, e) => {
    db.prepare('UPDATE goals SET status = ?, updated_at = ? WHERE id = ?').run(e.data.status, e.at, e.goalId);
  },
  'goal.edited': (db, e) => {
    const { scope, ...rest } = e.data;
    // null is a value here (a cap removed), undefined is "not changed".
    const fields: Record<string, string | number | null | undefined> = { ...rest, scope: scope && JSON.stringify(scope) };
    // Only the goal's own fields: event data also carries who decided (a human's channel).
    const sets = Object.entries(fields).filter(([k, v]) => v !== undefined && k in GOAL_COLUMN);
    if (sets.length === 0) return;
    db.prepare(`UPDATE goals SET ${sets.map(([k]) => `${GOAL_COLUMN[k]} = ?`).join(', ')}, updated_at = ? WHERE id = ?`).run(
      ...sets.map(([, v]) => v as string | number | null),
      e.at,
      e.goalId,
    );
  },
  'goal.file_applied': (db, e) => {
    // A path names one goal: linking it here unlinks it from any goal it named before.
    db.prepare('UPDATE goals SET file_path = NULL WHERE file_path = ? AND id <> ?').run(e.data.path, e.goalId);
    db.prepare('UPDATE goals SET file_path = ?, file_applied = ? WHERE id = ?').run(e.data.path, e.data.applied, e.goalId);
    // Keys are only ever added: a todo keeps its key when it leaves the file, so the next apply still reports it.
    const setKey = db.prepare('UPDATE todos SET key = ? WHERE id = ? AND goal_id = ?');
    for (const [key, id] of Object.entries(e.data.keys)) setKey.run(key, id, e.goalId);
  },
  'quota.spent': (db, e) => {
    db.prepare('INSERT INTO quota_spends (goal_id, turn_id, at) VALUES (?, ?, ?)').run(e.goalId, e.data.turnId, e.at);
  },
};

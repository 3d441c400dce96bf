import type { SqliteDb } from '../db/sqliteDb';
import type { KeyLook } from '../humanKey';
import { requireStandingDecision } from '../decisions';
import type { Monitor } from './monitorQueries';
import { checkMatches } from './checkPatterns';

/**
 * Before loopx runs a monitor's check (unattended, outside any agent's sandbox): the person's decision that lets it
 * run, found in the log and not in the monitors table (which anyone who can write the store can edit), must stand
 * (decisions.ts) and must be about this very command. A person added it (`monitor.added` with their channel), a
 * person approved it (`monitor.approved`), or it matches a pattern a person allowed for the goal (`goal.checks_allowed`).
 * Throws `unproven_decision` otherwise.
 */
export function requireCheckStanding(db: SqliteDb, m: Monitor, look?: KeyLook): void {
  const command = m.check ?? '';
  const what = `monitor ${m.id}'s check (${command})`;
  requireStandingDecision(db, decidingEvent(db, m, command), what, look);
}

function decidingEvent(db: SqliteDb, m: Monitor, command: string): number | null {
  if (m.approval === 'pattern') {
    const allowed = db
      .prepare(`SELECT seq, data FROM events WHERE goal_id = ? AND kind = 'goal.checks_allowed' ORDER BY seq DESC`)
      .all(m.goalId);
    for (const row of allowed) {
      const patterns = (JSON.parse(String(row.data)) as { patterns?: unknown }).patterns;
      if (Array.isArray(patterns) && patterns.some((p) => typeof p === 'string' && checkMatches(p, command))) return Number(row.seq);
    }
    return null;
  }
  const kind = m.approval === 'approved' ? 'monitor.approved' : 'monitor.added';
  const rows = db.prepare(`SELECT seq, data FROM events WHERE todo_id = ? AND kind = ? ORDER BY seq DESC`).all(m.todoId, kind);
  for (const row of rows) {
    const data = JSON.parse(String(row.data)) as { id?: string; command?: string | null };
    if (data.id === m.id) return data.command === command ? Number(row.seq) : null;
  }
  return null;
}

import type { SqliteDb } from '../db/sqliteDb';
import type { KeyLook } from '../humanKey';
import { readHumanKey } from '../humanKey';
import { auditDecisions, requireStandingDecision, unprovenDecisionError } from '../decisions';

/**
 * Before a turn starts (loopx run, VS Code, turn start): no person's decision in the log may stand on nothing (a forged
 * one can have changed anything: a check, a hook, a budget), and the goal must be active by the log's word, not only
 * the goals table's: its latest status event is a person's standing decision, or an agent undoing its own pause (the
 * one activation that needs no person, authority.ts `resumeNeedsHuman`). Throws `unproven_decision` otherwise.
 */
export function requireTurnMayStart(db: SqliteDb, goalId: string, look: KeyLook = readHumanKey()): void {
  const first = auditDecisions(db, look).unproven[0];
  if (first) throw unprovenDecisionError('no turn starts while a decision in the log stands on nothing', first);
  // By kind (events_todo: a goal's status events have no todo), not by goal: a goal's other events can be thousands.
  const [latest, before] = db
    .prepare(
      `SELECT seq, actor_kind, kind, data FROM events WHERE todo_id IS NULL AND kind IN ('goal.created', 'goal.status') AND +goal_id = ? ORDER BY seq DESC LIMIT 2`,
    )
    .all(goalId);
  const what = `a turn of goal ${goalId}`;
  const statusOf = (row: typeof latest) => (row ? (JSON.parse(String(row.data)) as { status?: string }).status : undefined);
  if (!latest || statusOf(latest) !== 'active') throw unprovenDecisionError(what, null, `no event in the log made goal ${goalId} active`);
  const byPerson = latest.actor_kind === 'human' && 'channel' in (JSON.parse(String(latest.data)) as object);
  if (byPerson) return requireStandingDecision(db, Number(latest.seq), what, look);
  const ownPause = before?.actor_kind === 'agent' && before.kind === 'goal.status' && statusOf(before) === 'paused';
  if (!ownPause) throw unprovenDecisionError(what, null, `event ${String(latest.seq)} made goal ${goalId} active, and only a person may`);
}

import type { SqliteDb } from '../db/sqliteDb';
import { iso } from '../time';

/**
 * A turn nobody finishes (its launcher gone, nothing recovering it) stops holding its goal's slot this long after its
 * todo last changed, so one forgotten `turn start` cannot stall a goal.
 */
export const WIND_DOWN_SECONDS = 60;
/**
 * How long after its time limit a runner's turn is surely over: the runner sends TERM at the limit and KILL 5 s
 * later, then finishes the turn. A turn's deadline is its start, its limit and this grace.
 */
export const TURN_END_GRACE_SECONDS = 15;

/** One open turn of a goal, and what it takes from the goal while it is open. */
export interface OpenTurnSlot {
  id: string;
  todoId: string | null;
  agent: string;
  startedAt: string;
  /** Its agent still holds its todo (a live lease). */
  ownLiveClaim: boolean;
  /**
   * It takes one of the goal's concurrent slots: its agent holds the todo, or its todo changed within
   * WIND_DOWN_SECONDS (an agent that shipped may still be exiting), or its deadline is ahead (a runner's agent may
   * still run after its runner died, until the runner that adopts it ends it).
   */
  holds: boolean;
  /** When it stops holding by itself (a lease lapses, the wind-down or the deadline passes); null while it does not hold. */
  holdsUntil: string | null;
  /** Already spent (`quota spend` by hand for an open turn): it reserves nothing more. */
  spent: boolean;
}

/** The open turns of a goal, oldest first. Every open turn reserves one unit of budget until it is finished. */
export function openTurnSlots(db: SqliteDb, goalId: string, nowMs: number): OpenTurnSlot[] {
  const at = iso(nowMs);
  const windDownSince = iso(nowMs - WIND_DOWN_SECONDS * 1000);
  return db
    .prepare(
      `SELECT t.id, t.todo_id, t.agent, t.started_at, t.deadline_at, d.status, d.owner, d.lease_expires_at, d.updated_at,
          EXISTS (SELECT 1 FROM quota_spends q WHERE q.goal_id = t.goal_id AND q.turn_id = t.id COLLATE NOCASE) AS spent
         FROM turns t LEFT JOIN todos d ON d.id = t.todo_id
        WHERE t.ended_at IS NULL AND t.goal_id = ? ORDER BY t.num`,
    )
    .all(goalId)
    .map((r) => {
      const lease = (r.lease_expires_at as string | null) ?? null;
      const ownLiveClaim = r.status === 'claimed' && r.owner === r.agent && lease !== null && lease > at;
      const updated = (r.updated_at as string | null) ?? null;
      const windDownEnds = updated && updated > windDownSince ? iso(Date.parse(updated) + WIND_DOWN_SECONDS * 1000) : null;
      const deadline = (r.deadline_at as string | null) ?? null;
      const ends = [ownLiveClaim ? lease : null, windDownEnds, deadline && deadline > at ? deadline : null].filter(
        (t): t is string => t !== null,
      );
      return {
        id: String(r.id),
        todoId: (r.todo_id as string | null) ?? null,
        agent: String(r.agent),
        startedAt: String(r.started_at),
        ownLiveClaim,
        holds: ends.length > 0,
        holdsUntil: ends.length ? (ends.sort().at(-1) as string) : null,
        spent: Number(r.spent) === 1,
      };
    });
}

/** Todos with a turn open on them: a turn start takes none of them (one open turn per todo). */
export function todosWithOpenTurns(slots: readonly OpenTurnSlot[]): string[] {
  return slots.map((s) => s.todoId).filter((id): id is string => id !== null);
}

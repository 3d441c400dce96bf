import type { SqliteDb } from '../db/sqliteDb';
import { iso } from '../time';
import { DEFAULT_LEASE_SECONDS } from '../model';

/**
 * A change sent back with changes asked goes back to its implementer first (issue 42): for a lease's length after the
 * verdict, only the agent that made it, or an agent on the host it ran on, may claim it (its branch and the comments
 * are its to continue). Then anyone may, as any open todo: an implementer that never comes back holds nothing up for
 * long. A person's claim is their decision and is never held.
 */
export const REVIEW_HOLD_MS = DEFAULT_LEASE_SECONDS * 1000;

/** Who asks to claim: the agent, and the host its turn runs on when a turn asks (a plain `todo claim` names none). */
export interface Claimer {
  agent: string;
  host: string | null;
}

/** A hold on a todo: who it waits for and until when. */
export interface ReviewHold {
  todoId: string;
  implementer: string;
  host: string | null;
  until: string;
}

/**
 * The rule, for set queries: an open todo whose current round's verdict asked for changes, decided after `?` (now less
 * the hold: `holdsSince`). `waitsUntil` below is the same rule for one todo a card already read. Read from the recent
 * verdicts (their index, migration 0022) to their todos: CROSS JOIN keeps that order, so a claim walks the changes asked
 * in the last half hour, never every open todo.
 */
const HOLDS = `
  SELECT t.id, t.implementer, r.implementer_host, r.decided_at FROM reviews r
   CROSS JOIN todos t ON t.id = r.todo_id AND t.review_round = r.round
   WHERE r.verdict = 'request_changes' AND r.decided_at > ? AND t.status = 'open'`;

const holdsSince = (at: string): string => iso(Date.parse(at) - REVIEW_HOLD_MS);

/** Until when a change sent back at `decidedAt` waits for its implementer. */
function holdUntil(decidedAt: string): string {
  return iso(Date.parse(decidedAt) + REVIEW_HOLD_MS);
}

/** Until when a todo with this status and current round waits for its implementer at `at`, or null (HOLDS's rule). */
export function waitsUntil(status: string, round: { verdict: string | null; decidedAt: string | null }, at: string): string | null {
  if (status !== 'open' || round.verdict !== 'request_changes' || round.decidedAt === null) return null;
  const until = holdUntil(round.decidedAt);
  return until > at ? until : null;
}

function holdOf(row: Record<string, unknown>): ReviewHold {
  return {
    todoId: String(row.id),
    implementer: String(row.implementer),
    host: row.implementer_host === null ? null : String(row.implementer_host),
    until: holdUntil(String(row.decided_at)),
  };
}

/** Whether a hold keeps `claimer` out: it is neither the implementer nor on the implementer's host. */
export function holdsOff(hold: ReviewHold, claimer: Claimer): boolean {
  if (claimer.agent === hold.implementer) return false;
  return !(claimer.host !== null && hold.host !== null && claimer.host === hold.host);
}

/** The hold on one todo that keeps `claimer` out now, or null. */
export function holdOn(db: SqliteDb, todoId: string, at: string, claimer: Claimer): ReviewHold | null {
  const row = db.prepare(`${HOLDS} AND t.id = ?`).get(holdsSince(at), todoId);
  const hold = row ? holdOf(row) : null;
  return hold && holdsOff(hold, claimer) ? hold : null;
}

/**
 * The holds that keep `claimer` out now, of a goal's open todos or of all (one indexed read; none where no review asked
 * for changes): a plan or a claim of the next todo leaves their todos out.
 */
export function heldFrom(db: SqliteDb, goalId: string | null, at: string, claimer: Claimer): ReviewHold[] {
  const since = holdsSince(at);
  const rows = goalId === null ? db.prepare(HOLDS).all(since) : db.prepare(`${HOLDS} AND t.goal_id = ?`).all(since, goalId);
  return rows.map(holdOf).filter((hold) => holdsOff(hold, claimer));
}

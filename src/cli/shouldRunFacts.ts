import type { SqliteDb } from '../kernel/db/sqliteDb';
import type { Goal } from '../kernel/model';
import { type ShouldRun, quotaState } from '../kernel/goals/quotaQueries';
import { todoCounts } from '../kernel/readModels/status';
import { type ShouldRunFacts, shouldRunReason } from '../protocol/shouldRunWords';

/**
 * What the sentence for a goal's should-run answer needs beyond the answer (its status, quota and todo counts), read
 * the same way for `loopx run`'s decision line, `quota should-run` and `quota show`: one reason, one sentence.
 */
export function shouldRunFacts(db: SqliteDb, goal: Goal, nowMs: number): Omit<ShouldRunFacts, 'run' | 'reason'> {
  return { goalStatus: goal.status, ...quotaState(db, goal, nowMs), counts: todoCounts(db, goal.id).get(goal.id) ?? {} };
}

/** Why a goal runs or waits, in words (src/protocol/shouldRunWords.ts); the reason code stays in JSON. */
export function shouldRunWhy(db: SqliteDb, goal: Goal, nowMs: number, answer: ShouldRun): string {
  return shouldRunReason({ ...shouldRunFacts(db, goal, nowMs), ...answer });
}

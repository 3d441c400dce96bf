import type { SqliteDb } from '../kernel/db/sqliteDb';
import type { Goal } from '../kernel/model';
import { quotaState, shouldRun } from '../kernel/queries/quota';
import { escapeMarkdown } from '../kernel/projections/todoCard';
import { relativeTime } from '../shared/timeWords';
import { shouldRunSentence } from '../protocol/shouldRunWords';

/** Markdown for a hover on the goal: status, quota and whether it should run now. */
export function goalHover(db: SqliteDb, goal: Goal, nowMs: number): string {
  const quota = quotaState(db, goal, nowMs);
  const answer = shouldRun(db, goal, nowMs, { quota });
  const sentence = shouldRunSentence({ ...answer, goalStatus: goal.status, ...quota });
  return [
    `**${goal.id}** ${escapeMarkdown(goal.title)} — ${goal.status}`,
    '',
    `- quota: ${quota.spent} of ${quota.turnsPerWindow} turns spent in ${quota.windowHours} h · ${quota.maxConcurrent} at a time${quota.holders.length ? ` (held now by ${quota.holders.join(', ')})` : ''}`,
    `- ${sentence}${answer.nextWakeAt ? ` (next chance ${relativeTime(answer.nextWakeAt, nowMs)})` : ''}`,
  ].join('\n');
}

import type { SqliteDb } from '../kernel/db/sqliteDb';
import type { Goal } from '../kernel/model';
import { quotaState, shouldRun } from '../kernel/goals/quotaQueries';
import { escapeMarkdown } from '../kernel/readModels/todoCard';
import { relativeTime } from '../shared/timeWords';
import { shouldRunSentence } from '../protocol/shouldRunWords';
import { windowUsageWords } from '../shared/usageWords';

/** Markdown for a hover on the goal: status, quota, what its window used against its caps, and whether it should run now. */
export function goalHover(db: SqliteDb, goal: Goal, nowMs: number): string {
  const quota = quotaState(db, goal, nowMs);
  const answer = shouldRun(db, goal, nowMs, { quota });
  const sentence = shouldRunSentence({ ...answer, goalStatus: goal.status, ...quota });
  const used = windowUsageWords(quota.usage, quota.windowHours);
  return [
    `**${goal.id}** ${escapeMarkdown(goal.title)} — ${goal.status}`,
    '',
    `- quota: ${quota.spent} of ${quota.turnsPerWindow} turns spent in ${quota.windowHours} h · ${quota.maxConcurrent} at a time${quota.holders.length ? ` (held now by ${quota.holders.join(', ')})` : ''}`,
    ...(used ? [`- used: ${escapeMarkdown(used)}`] : []),
    `- ${sentence}${answer.nextWakeAt ? ` (next chance ${relativeTime(answer.nextWakeAt, nowMs)})` : ''}`,
  ].join('\n');
}

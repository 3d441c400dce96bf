import { stringify } from 'yaml';
import type { GoalSpec } from '../kernel/goals/goalSpec/spec';
import { formatDuration } from '../kernel/time';
import { slugKey } from '../kernel/goals/goalSpec/spec';

/** A goal file's text for a spec: front matter in the documented key order, then the background as the body. */
export function formatGoalFile(spec: GoalSpec): string {
  const q = spec.quota;
  const quota = {
    ...(q.turnsPerWindow !== undefined ? { turns: q.turnsPerWindow } : {}),
    ...(q.windowHours !== undefined ? { window: hoursText(q.windowHours) } : {}),
    ...(q.maxConcurrent !== undefined ? { maxConcurrent: q.maxConcurrent } : {}),
    ...(q.cooldownSeconds !== undefined ? { cooldown: q.cooldownSeconds === 0 ? 0 : formatDuration(q.cooldownSeconds) } : {}),
    ...(q.tokensPerWindow !== undefined ? { tokens: q.tokensPerWindow } : {}),
    ...(q.dollarsPerWindow !== undefined ? { dollars: q.dollarsPerWindow } : {}),
  };
  const front = {
    ...(spec.goal ? { goal: spec.goal } : {}),
    title: spec.title,
    ...(spec.objective ? { objective: spec.objective } : {}),
    ...(spec.scope.length ? { scope: spec.scope } : {}),
    ...(Object.keys(quota).length ? { quota } : {}),
    ...(spec.check !== undefined ? { check: spec.check } : {}),
    ...(spec.allowedChecks !== undefined ? { allowedChecks: spec.allowedChecks } : {}),
    ...(spec.worktree !== undefined ? { worktree: spec.worktree } : {}),
    ...(spec.worktreeSetup !== undefined ? { worktreeSetup: spec.worktreeSetup } : {}),
    ...(spec.review !== undefined ? { review: spec.review } : {}),
    todos: spec.todos.map((t) => ({
      key: t.key,
      ...(t.id ? { id: t.id } : {}),
      title: t.title,
      ...(t.detail ? { detail: t.detail } : {}),
      priority: t.priority,
      ...(t.after.length ? { after: t.after } : {}),
      ...(t.recurrence?.every !== undefined ? { every: formatDuration(t.recurrence.every) } : {}),
      ...(t.recurrence?.at !== undefined ? { at: t.recurrence.at } : {}),
      ...(t.recurrence?.cron !== undefined ? { cron: t.recurrence.cron } : {}),
      ...(t.recurrence?.tz !== undefined ? { tz: t.recurrence.tz } : {}),
      ...(t.check !== undefined ? { check: t.check } : {}),
      ...(t.review !== undefined ? { review: t.review } : {}),
    })),
  };
  const yaml = stringify(front, { lineWidth: 0, flowCollectionPadding: false });
  return `---\n${yaml}---\n${spec.background ? `\n${spec.background}\n` : ''}`;
}

/** Window hours as a duration: whole hours as hours (24h, not 1d), else the shortest exact one (1.5 → 90m). */
function hoursText(hours: number): string | number {
  if (Number.isInteger(hours)) return `${hours}h`;
  const seconds = hours * 3600;
  return Number.isInteger(seconds) ? formatDuration(seconds) : seconds;
}

/** Where a new goal file for a title goes by convention. */
export function defaultGoalFilePath(title: string): string {
  return `loopx/${slugKey(title)}.goal.md`;
}

/** The starting text of a new goal file (loopx init, New Goal). */
export function goalFileTemplate(title: string): string {
  return formatGoalFile({
    title,
    objective: 'What is true when this goal is done.',
    scope: ['src/**'],
    quota: { turnsPerWindow: 20, windowHours: 24, maxConcurrent: 1, cooldownSeconds: 0 },
    background: '## Background\n\nWhy this goal exists, links, constraints. Agents read this every turn.',
    todos: [{ key: 'first-step', title: 'The first step', detail: 'What done means for this step.', priority: 1, after: [] }],
  });
}

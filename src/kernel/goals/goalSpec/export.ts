import type { SqliteDb } from '../../db/sqliteDb';
import { TODO_COLUMNS, todoFromRow } from '../../model';
import { type GoalSpec, exportQuota, slugKey } from './spec';
import { getGoal } from '../goalQueries';

/**
 * The goal spec a goal file would hold for this goal as the store has it. Killed todos are left out; a todo
 * without a key gets one from its title, and its id, so that applying the exported file links instead of adding.
 */
export function exportGoalSpec(db: SqliteDb, goalId: string): GoalSpec {
  const goal = getGoal(db, goalId);
  const todos = db
    .prepare(`SELECT ${TODO_COLUMNS} FROM todos t WHERE t.goal_id = ? AND t.status <> 'killed' ORDER BY t.num`)
    .all(goal.id)
    .map(todoFromRow);
  const taken = new Set(todos.map((t) => t.key).filter((k): k is string => k !== null));
  const keyOf = new Map<string, string>();
  for (const t of todos) {
    if (t.key !== null) {
      keyOf.set(t.id, t.key);
      continue;
    }
    const base = slugKey(t.title);
    let key = base;
    for (let n = 2; taken.has(key); n++) key = `${base}-${n}`;
    taken.add(key);
    keyOf.set(t.id, key);
  }
  return {
    goal: goal.id,
    title: goal.title,
    objective: goal.objective,
    scope: goal.scope,
    quota: exportQuota(goal.policy),
    background: goal.background,
    ...(goal.check !== null ? { check: goal.check } : {}),
    ...(goal.allowedChecks.length ? { allowedChecks: goal.allowedChecks } : {}),
    ...(goal.worktreeBase !== null ? { worktree: goal.worktreeBase } : {}),
    ...(goal.worktreeSetup !== null ? { worktreeSetup: goal.worktreeSetup } : {}),
    ...(goal.review !== null ? { review: goal.review } : {}),
    todos: todos.map((t) => ({
      key: keyOf.get(t.id) as string,
      id: t.id,
      title: t.title,
      detail: t.detail,
      priority: t.priority,
      after: t.dependsOn.map((d) => keyOf.get(d) ?? d),
      ...(t.check !== null ? { check: t.check } : {}),
      ...(t.review ? { review: true } : {}),
      ...(t.recurrence
        ? {
            recurrence: {
              ...(t.recurrence.every !== undefined ? { every: t.recurrence.every } : {}),
              ...(t.recurrence.at !== undefined ? { at: t.recurrence.at } : {}),
              ...(t.recurrence.cron !== undefined ? { cron: t.recurrence.cron } : {}),
              tz: t.recurrence.tz,
            },
          }
        : {}),
    })),
  };
}

import type { SqliteDb } from '../db/sqliteDb';
import type { Goal, Todo } from '../model';
import { getTodo } from './todoQueries';
import { getGoal } from '../goals/goalQueries';
import { type ReviewRound, reviewRounds } from './reviewQueries';
import { describeRun, latestCheckRun, listEvidence } from '../evidence/evidenceQueries';
import type { ScopeChange } from '../worktrees/changeScope';

/**
 * A change in review as its reviewer reads it (`loopx review show`, a review turn's prompt): the todo and its
 * acceptance, the round and what the implementer says it checked, the acceptance check's last kernel run, the
 * evidence, the earlier rounds' verdicts, and the change itself — its commits and diff, read from git at the scope
 * that was submitted (the worktree's branch from its base, or the workspace's uncommitted changes).
 */
export interface ReviewBrief extends ScopeChange {
  todo: Todo;
  goal: Pick<Goal, 'id' | 'title' | 'objective' | 'review'>;
  round: ReviewRound | null;
  rounds: ReviewRound[];
  check: { command: string; lastRun: string | null } | null;
  evidence: { summary: string; by: string; at: string; kind: string }[];
}

/** The brief of todo `todoId`'s change, its git side (`change`, read before: prepareChange in review.ts) given. */
export function reviewBrief(db: SqliteDb, todoId: string, change: ScopeChange): ReviewBrief {
  const todo = getTodo(db, todoId);
  const goal = getGoal(db, todo.goalId);
  const rounds = reviewRounds(db, todoId);
  const round = rounds.find((r) => r.round === todo.reviewRound) ?? null;
  const command = todo.check ?? goal.check;
  const run = command ? latestCheckRun(db, todoId, command, 0) : null;
  return {
    todo,
    goal: { id: goal.id, title: goal.title, objective: goal.objective, review: goal.review },
    round,
    rounds,
    check: command ? { command, lastRun: run ? describeRun(run) : null } : null,
    evidence: listEvidence(db, { todoId, limit: 20 }).map((e) => ({ summary: e.summary, by: e.actor, at: e.at, kind: e.kind })),
    ...change,
  };
}

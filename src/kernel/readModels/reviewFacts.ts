import type { SqliteDb } from '../db/sqliteDb';
import { type Evidence, listEvidence, turnEvidence } from '../evidence/evidenceQueries';
import { type QuotaState, quotaState } from '../goals/quotaQueries';
import { type Turn, listTurns } from '../turns/turnQueries';
import type { Gate, Goal, Todo } from '../model';
import { iso } from '../time';
import { type WorktreeRow, findWorktree } from '../worktrees/worktreeRows';
import { listGates } from '../gates/gateQueries';
import { listGoals } from '../goals/goalQueries';
import { listTodos } from '../todos/todoQueries';
import { type ReviewRound, reviewRounds } from '../todos/reviewQueries';
import { type RoleTotals, roleFigures } from './roleFigures';

/** What the owner's review packet says about one goal, read once: the Markdown packet and the HTML page render it. */
export interface GoalReview {
  goal: Goal;
  quota: QuotaState;
  /** Approved or rejected gates, with the channel each decision came through (`vscode`, `tty`) when recorded. */
  decisions: (Gate & { channel: string | null })[];
  pending: Gate[];
  /** `worktree`: the todo's branch and how it landed, when its goal gives todos worktrees. */
  shipped: { todo: Todo; evidence: Evidence[]; worktree?: WorktreeRow | null }[];
  blocked: Todo[];
  turns: (Turn & { evidence: { kernel: number; agent: number } })[];
  /** Each todo's review rounds (peer review: todos/review.ts), first submitted first; empty without review. */
  reviews: { todoId: string; title: string; rounds: ReviewRound[] }[];
  /** What the goal's turns took, by role: turns, their wall time and what they cost (the cost known). */
  byRole: Record<Turn['role'], RoleTotals>;
}

/** Every todo of the goal that went through review, with its rounds. */
function goalReviews(db: SqliteDb, goalId: string): GoalReview['reviews'] {
  const todos = db
    .prepare('SELECT DISTINCT t.id, t.title, t.num FROM reviews r JOIN todos t ON t.id = r.todo_id WHERE r.goal_id = ? ORDER BY t.num')
    .all(goalId);
  return todos.map((t) => ({ todoId: String(t.id), title: String(t.title), rounds: reviewRounds(db, String(t.id)) }));
}

export interface ReviewFacts {
  at: string;
  goalId: string | undefined;
  goals: GoalReview[];
}

/** How each decision came in, read from its event; decisions from before channels have none. */
function decisionChannels(db: SqliteDb, goalId: string): Map<string, string> {
  const channels = new Map<string, string>();
  for (const row of db.prepare(`SELECT data FROM events WHERE goal_id = ? AND kind = 'gate.decided'`).all(goalId)) {
    const data = JSON.parse(String(row.data)) as { id: string; channel?: string };
    if (data.channel) channels.set(data.id, data.channel);
  }
  return channels;
}

export function reviewFacts(db: SqliteDb, nowMs: number, goalId?: string): ReviewFacts {
  const at = iso(nowMs);
  const goals = listGoals(db)
    .filter((g) => !goalId || g.id === goalId)
    .map((goal): GoalReview => {
      const gates = listGates(db, { goalId: goal.id });
      const decided = gates.filter((g) => g.status === 'approved' || g.status === 'rejected');
      const channels = decided.length ? decisionChannels(db, goal.id) : new Map<string, string>();
      const turns = listTurns(db, { goalId: goal.id, limit: 200 }).turns;
      return {
        goal,
        quota: quotaState(db, goal, nowMs),
        decisions: decided.map((g) => ({ ...g, channel: channels.get(g.id) ?? null })),
        pending: gates.filter((g) => g.status === 'pending'),
        shipped: listTodos(db, at, { goalId: goal.id, status: 'shipped' }).map((todo) => ({
          todo,
          evidence: listEvidence(db, { todoId: todo.id, limit: 20 }),
          worktree: findWorktree(db, todo.id) ?? null,
        })),
        blocked: listTodos(db, at, { goalId: goal.id, status: 'blocked' }),
        turns: turns.map((t) => {
          const ev = turnEvidence(db, t);
          return { ...t, evidence: { kernel: ev.kernel.length, agent: ev.agent } };
        }),
        reviews: goalReviews(db, goal.id),
        byRole: roleFigures(db, goal.id, null),
      };
    });
  return { at, goalId, goals };
}

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
        turns: listTurns(db, { goalId: goal.id, limit: 200 }).turns.map((t) => {
          const ev = turnEvidence(db, t);
          return { ...t, evidence: { kernel: ev.kernel.length, agent: ev.agent } };
        }),
      };
    });
  return { at, goalId, goals };
}

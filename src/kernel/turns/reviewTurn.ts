import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kernel } from '../kernel';
import type { Actor } from '../events/eventTypes';
import { RefusedError } from '../errors';
import { getGoal } from '../goals/goalQueries';
import { planTurn } from '../goals/quotaQueries';
import { requireTurnMayStart } from '../goals/goalStanding';
import { claimReviewInTx, prepareChange } from '../todos/review';
import { reviewBrief } from '../todos/reviewBrief';
import type { ScopeChange } from '../worktrees/changeScope';
import { REVIEW_TURN_COMMANDS, allowedCommands, writeBackOf } from './turnCommands';
import { getTurn } from './turnQueries';
import { renderReviewPrompt } from './reviewPrompt';
import { recordTurnStart, requireNoOpenTurn, turnEnv } from './turnRecord';
import type { TurnStart, TurnStartInput } from './turnRecord';

/**
 * Starts a review turn (todos/review.ts): should-run's plan for a reviewer (the goal's changes waiting for review,
 * never the agent's own), the review claim, the turn and its prompt — the change, what it is judged by, the verdict
 * verbs — in one transaction, as a todo's turn is started (turns.ts). The goal's own agent does not bind a review: its
 * reviewer is the goal's review setting's to choose, which the claim checks.
 *
 * The change's diff is read from git before the write (never under the store's write lock), for the todo the plan
 * names then; should another runner take that review meanwhile, the turn is refused rather than started on a change
 * it was not shown. The turn runs in the change's folder (the todo's worktree, else the workspace) with no worktree
 * of its own: what it may not change there, its verdict's scope check holds it to (a change that moved is no verdict).
 */
export function startReviewTurn(
  kernel: Kernel,
  input: TurnStartInput,
  checked: { agent: Actor; lease: number; limit: number | undefined },
): TurnStart {
  const { agent, lease, limit } = checked;
  const planned =
    input.todoId ?? kernel.read((db, nowMs) => planTurn(db, getGoal(db, input.goalId), nowMs, { reviewer: agent.name }).todoId);
  const change: ScopeChange | null = planned ? prepareChange(kernel, planned) : null;
  return kernel.write((tx) => {
    const goal = getGoal(tx.db, input.goalId);
    const { answer, todoId } = planTurn(tx.db, goal, tx.nowMs, { reviewer: agent.name });
    // A named review that is not reviewable now is refused by its claim below, in its own words.
    if (!answer.run && !(input.todoId !== undefined && answer.reason === 'no_ready_work'))
      throw new RefusedError(
        'should_not_run',
        `goal ${goal.id} has no change to review now: ${answer.reason}`,
        'a change is reviewed once its implementer ships it',
        {
          route: answer.nextWakeAt ? 'wait' : 'blocked',
          ...answer,
        },
      );
    const todo = input.todoId ?? (todoId as string);
    if (todo !== planned || change === null)
      throw new RefusedError(
        'not_ready',
        `the review of todo ${todo} was not ready: another turn took the planned review meanwhile`,
        'start the turn again',
      );
    requireTurnMayStart(tx.db, goal.id);
    requireNoOpenTurn(tx, todo, 'a review');
    claimReviewInTx(tx, todo, agent, input.host, lease);
    const { id, promptPath, prefix } = recordTurnStart(tx, kernel, input, {
      goalId: goal.id,
      todoId: todo,
      agent: agent.name,
      limit,
      role: 'review',
    });
    const prompt = renderReviewPrompt({
      turnId: id,
      agent: agent.name,
      brief: reviewBrief(tx.db, todo, change),
      prefix,
      writeBack: writeBackOf(input.host),
    });
    // Written last inside the transaction: if writing fails, the review claim and the turn roll back with it.
    const promptFile = join(kernel.root, promptPath);
    writeFileSync(promptFile, prompt);
    const env = { ...turnEnv(kernel, { id, goalId: goal.id, todoId: todo, agent: agent.name, promptFile }), LOOPX_ROLE: 'review' };
    return {
      turn: getTurn(tx.db, id),
      promptFile,
      env,
      allowedCommands: allowedCommands(prefix, todo, REVIEW_TURN_COMMANDS),
      // Where the change is, read with it before the write: the todo's worktree, else the workspace.
      cwd: change.folder,
      worktree: null,
    };
  });
}

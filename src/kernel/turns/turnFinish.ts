import { type Kernel, type Tx, STORE_DIR } from '../kernel';
import { InvalidInputError, NotAllowedError, RefusedError } from '../errors';
import { KERNEL } from '../authority';
import { spendInTx } from '../goals/quota';
import { getGoal } from '../goals/goalQueries';
import { releaseInTx } from '../todos/claims';
import { getTodoCore } from '../todos/todoQueries';
import { releaseReviewInTx } from '../todos/review';
import { priceTable } from '../prices/priceTable';
import { type ResultKind, type Turn, getTurn, isValidatedResult } from './turnQueries';
import { isSampleTurn, refuseAgentFinish } from './turnLaunchers';
import { usageOfTurn } from './usage/turnUsage';
import { type CheckedUsage, checkUsage, priced } from './usage/usage';

// A turn's finish: how it is judged, what it spends, what its todo is left with. Its start is turns.ts.

/**
 * Ends a turn and judges it by what the agent actually wrote back after the turn started (never by what it says):
 * shipped → completion; evidence → progress; a gate or a block → user action; a release or handoff → wait; nothing → host
 * failure (non-zero exit) or validation failure. Quota is spent once, and only for progress or completion. A claim
 * the agent still holds is released with a continuation for the next turn.
 *
 * What the turn used is recorded either way (a failed turn still cost money): read from the turn's output as its
 * host wrote it (usage/turnUsage.ts), or, when the output says nothing, from `reported` (`turn finish --usage`, for
 * a custom host). A report that fails the checks is recorded as unknown; `usageWarnings` says why.
 *
 * A turn a launcher started (`launchedBy`) is finished by that launcher (`byLauncher`, passed in process only), the
 * kernel or a person, never by its agent: an agent that finished its own turn first could record a cheaper report
 * than its host's, and the launcher's finish would then be refused.
 */
export function finishTurn(
  kernel: Kernel,
  turnId: string,
  exitCode: number,
  reported?: unknown,
  options: { byLauncher?: boolean } = {},
): Turn & { usageWarnings: string[] } {
  // The kernel itself may finish a turn whose launcher is gone (launchers.ts); the CLI always has a human or an agent.
  const caller = kernel.actor;
  if (!Number.isInteger(exitCode) || exitCode < -1 || exitCode > 255)
    throw new InvalidInputError('exit code must be a whole number from 0 to 255 (or -1 when unknown)');
  const { usage, warnings } = turnUsage(kernel, getTurn(kernel.db, turnId), reported);
  return kernel.write((tx) => {
    const turn = getTurn(tx.db, turnId);
    if (turn.endedAt) throw new RefusedError('illegal_transition', `turn ${turnId} already finished (${turn.resultKind})`);
    if (caller.kind === 'agent' && caller.name !== turn.agent)
      throw new NotAllowedError(`turn ${turnId} belongs to ${turn.agent}; ${caller.name} may not finish it`);
    // A "person" without a channel (a script, or an agent that unset LOOPX_AGENT) is held to the agent's rule.
    if (!options.byLauncher && (caller.kind === 'agent' || (caller.kind === 'human' && !caller.channel))) refuseAgentFinish(tx.db, turn);
    const resultKind = classify(tx, turn, exitCode);
    const validated = isValidatedResult(resultKind);
    // The turn's reservation becomes its spend; only a budget lowered while it ran leaves no room (never over budget).
    // The window's sample turn did no work: it spends nothing, however it ends.
    const spends = validated && !isSampleTurn(tx.db, turn, options.byLauncher === true);
    const spent = spendInTx(tx, getGoal(tx.db, turn.goalId), turn.id, spends);
    const alreadySpent = spent === 'already_spent';
    const budgetFull = spent === 'no_room';
    const spend = spent === 'spent';
    if (turn.todoId) releaseIfHeld(tx, turn, resultKind, exitCode);
    // Last: the back-off looks for changes to the todo after this event.
    tx.emit({
      kind: 'turn.finished',
      goalId: turn.goalId,
      todoId: turn.todoId,
      data: {
        id: turn.id,
        exitCode,
        resultKind,
        spent: spend || alreadySpent,
        ...(budgetFull ? { budgetFull: true } : {}),
        ...(usage ? { usage } : {}),
      },
    });
    return { ...getTurn(tx.db, turnId), usageWarnings: warnings };
  });
}

/** The host's own report in the turn's output wins over one passed in: an agent cannot talk its turn cheaper. */
function turnUsage(kernel: Kernel, turn: Turn, reported: unknown): CheckedUsage {
  if (turn.endedAt) return { usage: null, warnings: [] }; // refused in the transaction, in words
  // Priced from the store's table only: a price is a person's decision, never a file an agent could rewrite.
  const prices = kernel.read((db) => priceTable(db));
  const fromOutput = usageOfTurn(kernel.root, STORE_DIR, turn, { prices });
  if (fromOutput.usage || reported === undefined) return fromOutput;
  const passed = checkUsage(reported);
  if (passed.usage?.costUsd === null)
    return { usage: priced(passed.usage, prices), warnings: [...fromOutput.warnings, ...passed.warnings] };
  return { usage: passed.usage, warnings: [...fromOutput.warnings, ...passed.warnings] };
}

function classify(tx: Tx, turn: Turn, exitCode: number): ResultKind {
  // This turn's todo, and the agent's goal-level writes (evidence or a gate about the goal itself). Not its writes
  // about other todos: the same agent may run several turns of one goal at once, each judged by its own work.
  const rows = tx.db
    .prepare(`SELECT kind, actor, todo_id FROM events WHERE seq > ? AND (todo_id = ? OR (goal_id = ? AND todo_id IS NULL AND actor = ?))`)
    .all(turn.startSeq, turn.todoId, turn.goalId, turn.agent);
  const by = (kind: string) => rows.some((r) => r.kind === kind && r.actor === turn.agent);
  // A review turn is judged by its verdict: one given completes it; "could not review" is recorded work, never an
  // approval; asking for changes past the rounds leaves a person's gate.
  if (turn.role === 'review') {
    if (by('todo.approved') || by('todo.changes_requested')) return 'validated_completion';
    if (by('todo.review_unable')) return rows.some((r) => r.kind === 'gate.asked') ? 'user_action_required' : 'validated_progress';
    return exitCode === 0 ? 'validation_failed' : 'host_failure';
  }
  // Shipped, or submitted for review (its goal asks for one): the todo's work is done either way.
  if (by('todo.shipped') || by('todo.submitted')) return 'validated_completion';
  if (by('evidence')) return 'validated_progress';
  if (by('gate.asked') || by('todo.blocked')) return 'user_action_required';
  if (by('todo.released') || by('handoff.offered')) return 'wait';
  return exitCode === 0 ? 'validation_failed' : 'host_failure';
}

function releaseIfHeld(tx: Tx, turn: Turn, result: ResultKind, exitCode: number): void {
  const todo = getTodoCore(tx.db, turn.todoId as string);
  if (turn.role === 'review') {
    // A review left without a verdict: another review turn looks at the change.
    if (todo.status === 'in_review' && todo.owner === turn.agent)
      releaseReviewInTx(
        tx,
        todo,
        `Review turn ${turn.id} (${turn.agent} on ${turn.host}) ended with exit code ${exitCode} without a verdict.`,
        KERNEL,
      );
    return;
  }
  if (todo.status !== 'claimed' || todo.owner !== turn.agent) return;
  const last = tx.db
    .prepare(`SELECT data FROM events WHERE seq > ? AND todo_id = ? AND kind = 'evidence' ORDER BY seq DESC LIMIT 1`)
    .get(turn.startSeq, todo.id);
  const summary = last ? (JSON.parse(String(last.data)) as { summary: string }).summary : '';
  const note =
    result === 'validated_progress'
      ? `Turn ${turn.id} (${turn.agent}) recorded progress: ${summary}. Continue from there.`
      : result === 'user_action_required'
        ? `Turn ${turn.id} (${turn.agent}) stopped for a human decision.`
        : `Turn ${turn.id} (${turn.agent} on ${turn.host}) ended with exit code ${exitCode} without writing anything back; see .loopx/turns/${turn.id}/.`;
  releaseInTx(tx, todo, note, KERNEL);
}

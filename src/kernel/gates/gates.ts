import type { Kernel, Tx } from '../kernel';
import type { Actor } from '../events/eventTypes';
import { type Gate, isTerminalStatus, nextNum } from '../model';
import { getGate } from './gateQueries';
import { IllegalTransitionError, InvalidInputError } from '../errors';
import { requireHumanChannel } from '../authority';
import { formatId, optionalText, requireText } from '../validate';
import { TEXT_LIMITS } from '../../shared/textLimits';
import { getGoal } from '../goals/goalQueries';
import { getTodoCore } from '../todos/todoQueries';

export function askGate(kernel: Kernel, input: { todoId?: string; goalId?: string; question: string }): Gate {
  kernel.requireActor();
  if ((input.todoId === undefined) === (input.goalId === undefined)) {
    throw new InvalidInputError('a gate is asked on exactly one of --todo or --goal');
  }
  const question = requireText(input.question, 'question', { max: TEXT_LIMITS.question, multiline: true });
  return kernel.write((tx) => {
    let goalId: string;
    let todoId: string | null = null;
    if (input.todoId !== undefined) {
      const todo = getTodoCore(tx.db, input.todoId);
      if (isTerminalStatus(todo.status)) {
        throw new IllegalTransitionError(`todo ${todo.id} is ${todo.status}; there is nothing left to gate`);
      }
      goalId = todo.goalId;
      todoId = todo.id;
    } else {
      goalId = getGoal(tx.db, input.goalId as string).id;
    }
    return getGate(tx.db, askGateInTx(tx, goalId, todoId, question));
  });
}

/** The one write path of `gate.asked` (a question checked by the caller); `as` the kernel's own (a review's rounds ran out). */
export function askGateInTx(tx: Tx, goalId: string, todoId: string | null, question: string, as?: Actor): string {
  const num = nextNum(tx.db, 'gates');
  const id = formatId('gate', num);
  tx.emit({ kind: 'gate.asked', goalId, todoId, data: { id, num, question } }, as);
  return id;
}

/** The one write path of `gate.decided`: the caller checked that a person decides (requireHumanChannel). */
export function decideGateInTx(tx: Tx, gate: Gate, decision: 'approved' | 'rejected', note: string | null): void {
  tx.emit({ kind: 'gate.decided', goalId: gate.goalId, todoId: gate.todoId, data: { id: gate.id, status: decision, note } });
}

/** Only a human decides a gate: a worker cannot bless its own transition. */
export function decideGate(kernel: Kernel, gateId: string, decision: 'approved' | 'rejected', noteText?: string): Gate {
  const actor = kernel.requireActor();
  const verb = decision === 'approved' ? 'approve' : 'reject';
  requireHumanChannel(actor, `${verb === 'approve' ? 'approving' : 'rejecting'} gate ${gateId}`);
  const note = optionalText(noteText, 'note') || null;
  return kernel.write((tx) => {
    const gate = getGate(tx.db, gateId);
    if (gate.status !== 'pending') {
      throw new IllegalTransitionError(`gate ${gateId} is already ${gate.status}${gate.decidedBy ? ` by ${gate.decidedBy}` : ''}`);
    }
    // A gate on a change in review is decided by a verdict (todos/verdicts.ts), which ends the review with it; the
    // adapters send a person's decision there (decideGateOrReview, approvals.ts).
    if (gate.todoId !== null && getTodoCore(tx.db, gate.todoId).status === 'in_review')
      throw new IllegalTransitionError(
        `gate ${gateId} asks about todo ${gate.todoId}'s change in review; a verdict on the change decides it`,
        `loopx review approve ${gate.todoId}, or loopx review request-changes ${gate.todoId} --summary "..."`,
      );
    decideGateInTx(tx, gate, decision, note);
    return getGate(tx.db, gateId);
  });
}

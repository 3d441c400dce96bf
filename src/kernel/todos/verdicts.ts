import type { Kernel, Tx } from '../kernel';
import { type Finding, type Todo, defaultReviewPolicy } from '../model';
import { GatePendingError, IllegalTransitionError, InvalidInputError, NotAllowedError, RefusedError } from '../errors';
import { KERNEL, requireHumanChannel } from '../authority';
import { requireText } from '../validate';
import { TEXT_LIMITS } from '../../shared/textLimits';
import { getGoal } from '../goals/goalQueries';
import { getGate, pendingGateIds } from '../gates/gateQueries';
import { askGateInTx, decideGateInTx } from '../gates/gates';
import { sameScope, scopeWords } from '../worktrees/changeScope';
import { getTodo } from './todoQueries';
import { type ReviewRound, openTurnHost, reviewLive, reviewRound } from './reviewQueries';
import { checkFindings, prepareScope } from './review';
import { scheduleNextOccurrence } from './todos';

/**
 * The verdicts on a change in review (review.ts says what review is): a reviewer's, holding a live review claim, or a
 * person's. Approval is the todo's ship; asking for changes sends it back to work with the comments; "could not
 * review" leaves it in review for another look; asking for changes past the goal's rounds raises a gate instead.
 */

export type VerdictKind = 'approve' | 'request_changes' | 'could_not_review';
export const VERDICTS: readonly VerdictKind[] = ['approve', 'request_changes', 'could_not_review'];

export interface VerdictInput {
  verdict: VerdictKind;
  /** The reviewer's (or person's) words: what was checked and what it found; for could_not_review, why not. */
  summary: string;
  findings?: readonly unknown[];
}

/** What a verdict did: the todo as it is now, and where it went. */
export interface VerdictOutcome {
  todo: Todo;
  outcome: 'approved' | 'changes_requested' | 'escalated' | 'not_reviewed';
  round: number;
  /** The gate a person decides, when the rounds ran out. */
  gateId?: string;
}

/**
 * Records a verdict on a todo in review: its reviewer's (holding a live review claim, the change still the scope
 * submitted) or a person's through a human channel (an override, deciding any gate the review raised). An approval
 * with a finding the goal blocks at is refused; asking for changes past the goal's rounds raises a gate instead.
 */
export function recordVerdict(kernel: Kernel, todoId: string, input: VerdictInput): VerdictOutcome {
  const actor = kernel.requireActor();
  const person = actor.kind === 'human';
  if (person) requireHumanChannel(actor, `giving todo ${todoId}'s review verdict`);
  if (!VERDICTS.includes(input.verdict))
    throw new InvalidInputError(`a verdict is one of ${VERDICTS.join(', ')}, got ${JSON.stringify(input.verdict)}`);
  const summary = requireText(input.summary, 'summary', { max: TEXT_LIMITS.summary, multiline: true });
  const findings = checkFindings(input.findings ?? [], kernel.root);
  // git before the write: a person's verdict is about the change as it stands, whatever moved.
  const now = person ? null : prepareScope(kernel, todoId);
  const result = kernel.write((tx): VerdictOutcome | { moved: string } => {
    const todo = getTodo(tx.db, todoId);
    if (todo.status !== 'in_review') throw new IllegalTransitionError(`todo ${todoId} is ${todo.status}, not in review`);
    if (todo.implementer === actor.name)
      throw new NotAllowedError(`${actor.name} implemented todo ${todoId}; it may not judge its own change`);
    const goal = getGoal(tx.db, todo.goalId);
    // A todo that asks for review itself, or whose goal's review was turned off since, is judged by the defaults.
    const policy = goal.review ?? defaultReviewPolicy();
    const round = reviewRound(tx.db, todoId, todo.reviewRound);
    if (!person && !(reviewLive(todo, tx.at) && todo.owner === actor.name))
      throw new NotAllowedError(
        `${actor.name} does not hold todo ${todoId}'s review${todo.owner ? ` (${todo.owner} does)` : ''}`,
        'a review turn claims it: loopx turn start --goal G --review',
      );
    const host = person ? null : openTurnHost(tx.db, todoId, actor.name);
    const base = { previousOwner: todo.owner, round: todo.reviewRound, host };
    if (now && round && !sameScope(now, round.scope)) {
      const reason = `the change moved while it was under review (submitted ${scopeWords(round.scope)}, now ${scopeWords(now)}); a review may not change what it judges`;
      // The kernel's finding, not the reviewer's verdict: its turn gave none.
      tx.emit({ kind: 'todo.review_unable', goalId: todo.goalId, todoId, data: { ...base, reason, escalated: false } }, KERNEL);
      return { moved: reason };
    }
    const scope = round?.scope ?? { base: null, head: null, diffHash: null, files: [] };
    const verdictData = { ...base, summary, findings, scope, byPerson: person };
    if (input.verdict === 'could_not_review') {
      tx.emit({ kind: 'todo.review_unable', goalId: todo.goalId, todoId, data: { ...base, reason: summary, escalated: false } });
      return { todo: getTodo(tx.db, todoId), outcome: 'not_reviewed', round: todo.reviewRound };
    }
    const gates = pendingGateIds(tx.db, todoId);
    if (gates.length > 0 && !person) throw new GatePendingError(`a verdict on todo ${todoId}`, gates);
    if (input.verdict === 'approve') {
      const blocking = findings.filter((f) => policy.blocking.includes(f.severity));
      if (blocking.length > 0 && !person)
        throw new InvalidInputError(
          `approval with ${blocking.length} blocking finding(s) (${blocking.map((f) => f.severity).join(', ')}): goal ${goal.id} blocks at ${policy.blocking.join(', ')}; ask for changes instead`,
        );
      decideGates(tx, gates, 'approved', summary);
      tx.emit({ kind: 'todo.approved', goalId: todo.goalId, todoId, data: verdictData });
      scheduleNextOccurrence(tx, todoId);
      return { todo: getTodo(tx.db, todoId), outcome: 'approved', round: todo.reviewRound };
    }
    if (!person && todo.reviewRound >= policy.maxRounds) {
      const gateId = escalate(tx, todo, round, base, actor.name, summary, findings, policy.maxRounds);
      return { todo: getTodo(tx.db, todoId), outcome: 'escalated', round: todo.reviewRound, gateId };
    }
    decideGates(tx, gates, 'rejected', summary);
    tx.emit({ kind: 'todo.changes_requested', goalId: todo.goalId, todoId, data: verdictData });
    return { todo: getTodo(tx.db, todoId), outcome: 'changes_requested', round: todo.reviewRound };
  });
  if ('moved' in result)
    throw new RefusedError('scope_changed', result.moved, 'the review was given up; another review turn looks at the change as it is now');
  return result;
}

/** A person's verdict decides the gates the review raised (the question was theirs to answer). */
function decideGates(tx: Tx, gates: readonly string[], status: 'approved' | 'rejected', note: string): void {
  for (const id of gates) decideGateInTx(tx, getGate(tx.db, id), status, note);
}

/**
 * The rounds ran out with changes still asked: no verdict, the review's claim ends, and a gate asks a person with both
 * sides' words. Approving it approves the change as it stands; rejecting it sends it back for another round.
 */
function escalate(
  tx: Tx,
  todo: Todo,
  round: ReviewRound | null,
  base: { previousOwner: string | null; round: number; host: string | null },
  reviewer: string,
  summary: string,
  findings: readonly Finding[],
  maxRounds: number,
): string {
  const reason = `round ${todo.reviewRound} of ${maxRounds} ended with changes asked: ${summary}`;
  tx.emit({ kind: 'todo.review_unable', goalId: todo.goalId, todoId: todo.id, data: { ...base, reason, escalated: true } });
  const top = findings
    .slice(0, 5)
    .map((f) => `${f.severity} ${f.title}`)
    .join('; ');
  const question = [
    `Review of todo ${todo.id} ran ${todo.reviewRound} round(s) without approval.`,
    `The implementer (${todo.implementer ?? 'unknown'}) says it checked: ${round?.validation ?? 'nothing said'}`,
    `The reviewer (${reviewer}) asks for changes: ${summary}${top ? ` (${top})` : ''}`,
    'Approve to take the change as it stands; reject to send it back for another round.',
  ].join('\n');
  return askGateInTx(tx, todo.goalId, todo.id, question.slice(0, TEXT_LIMITS.question), KERNEL);
}

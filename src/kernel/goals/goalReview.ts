import type { Kernel, Tx } from '../kernel';
import { InvalidInputError } from '../errors';
import { requireHumanChannel } from '../authority';
import { getGoal } from './goalQueries';
import { HOST_ID } from '../../shared/hostCatalog';
import { canonicalJson } from '../events/canonical';
import { DEFAULT_BLOCKING, DEFAULT_MAX_ROUNDS, type Goal, type ReviewPolicy, type ReviewPolicyInput, SEVERITIES } from '../model';

/** A checked policy, its defaults filled in; bad input is refused in words. */
export function reviewPolicy(input: ReviewPolicyInput): ReviewPolicy {
  const reviewerHost = input.reviewerHost ?? null;
  if (reviewerHost !== null && !HOST_ID.test(reviewerHost))
    throw new InvalidInputError(`${JSON.stringify(reviewerHost)} is not a host's name (e.g. codex, claude, opencode)`);
  const reviewerAgent = input.reviewerAgent ?? null;
  if (reviewerAgent !== null && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(reviewerAgent))
    throw new InvalidInputError(`${JSON.stringify(reviewerAgent)} is not an agent's name`);
  const maxRounds = input.maxRounds ?? DEFAULT_MAX_ROUNDS;
  if (!Number.isInteger(maxRounds) || maxRounds < 1 || maxRounds > 10)
    throw new InvalidInputError('review rounds are a whole number from 1 to 10');
  const blocking = [...new Set(input.blocking ?? DEFAULT_BLOCKING)];
  const odd = blocking.find((s) => !(SEVERITIES as readonly string[]).includes(s));
  if (odd !== undefined) throw new InvalidInputError(`${JSON.stringify(odd)} is not a severity: use ${SEVERITIES.join(', ')}`);
  return {
    reviewerHost,
    reviewerAgent,
    otherHost: input.otherHost ?? reviewerHost !== null,
    maxRounds,
    blocking: SEVERITIES.filter((s) => blocking.includes(s)),
    ...(input.autoLand === true ? { autoLand: true as const } : {}),
  };
}

/** The policy as the goal's column holds it (canonical JSON), or null for review off. */
export function reviewColumn(policy: ReviewPolicy | null): string | null {
  return policy === null ? null : canonicalJson(policy);
}

/**
 * Turns a goal's review on (a policy), changes it, or turns it off (null). A person's decision: review is the second
 * pair of eyes on what agents ship, so an agent may not lower it for its own goal.
 */
export function setGoalReview(kernel: Kernel, goalId: string, policy: ReviewPolicy | null): Goal {
  const action = policy === null ? `turning off review for goal ${goalId}` : `setting goal ${goalId}'s review`;
  requireHumanChannel(kernel.requireActor(), action);
  return kernel.write((tx) => {
    const goal = getGoal(tx.db, goalId);
    if (reviewColumn(goal.review) === reviewColumn(policy)) return goal;
    setReviewInTx(tx.emit.bind(tx), goalId, policy, goal.review);
    return getGoal(tx.db, goalId);
  });
}

/** The one write path of `goal.review_set` (Set Review…, `goal set-review`, a goal file a person applies). */
export function setReviewInTx(emit: Tx['emit'], goalId: string, review: ReviewPolicy | null, from: ReviewPolicy | null): void {
  emit({ kind: 'goal.review_set', goalId, todoId: null, data: { review, from } });
}

import type { Kernel, Tx } from '../kernel';
import type { Actor } from '../events/eventTypes';
import { GatePendingError, InvalidInputError, NotAllowedError, RefusedError } from '../errors';
import { iso } from '../time';
import { randomToken } from '../nodeCrypto';
import { optionalText, requireText } from '../validate';
import { TEXT_LIMITS } from '../../shared/textLimits';
import { reviewerWords } from '../../shared/reviewWords';
import { getGoal } from '../goals/goalQueries';
import { type Finding, type Goal, type ReviewPolicy, type Severity, type Todo, SEVERITIES } from '../model';
import { pendingGateIds } from '../gates/gateQueries';
import { findWorktree } from '../worktrees/worktreeRows';
import { type ReviewScope, type ScopeChange, readReviewScope, readScopeChange } from '../worktrees/changeScope';
import { type TodoCore, getTodo } from './todoQueries';
import { type ReviewRound, openTurnHost, reviewLive, reviewRound } from './reviewQueries';

/**
 * A todo's review (issue 42): when its goal asks for one, what the implementer ships waits `in_review` until another
 * agent — never the implementer, on another host where the goal asks — approves it (the todo is done), asks for
 * changes (it goes back to work, the comments its continuation), or says it could not review (it waits for another
 * look, never read as approval). Past the goal's rounds, asking for changes becomes a gate: a person decides with both
 * sides' words. A person may give either verdict instead of a reviewer (recorded as theirs, with the channel).
 *
 * Each verdict is about an exact scope (changeScope.ts): the one the implementer submitted. A reviewer's verdict is
 * taken only while the change is still that scope, so a review turn that edited the change gives no verdict at all.
 */

const MAX_FINDINGS = 50;

/** Reads the scope of a todo's change from git, before the store's write (submission and verdicts compare it). */
export function prepareScope(kernel: Kernel, todoId: string): ReviewScope {
  const worktree = kernel.read((db) => findWorktree(db, todoId));
  return readReviewScope(kernel.root, worktree);
}

/** Past this a diff is cut (the reviewer reads the rest with git in the folder named). */
const DIFF_LIMIT = 200_000;

/** Reads the commits and diff of todo `todoId`'s submitted change from git, before a read or write uses them (reviewBrief.ts). */
export function prepareChange(kernel: Kernel, todoId: string): ScopeChange {
  const { worktree, scope } = kernel.read((db) => {
    const round = reviewRound(db, todoId, getTodo(db, todoId).reviewRound);
    return { worktree: findWorktree(db, todoId), scope: round?.scope ?? null };
  });
  return readScopeChange(kernel.root, worktree, scope, DIFF_LIMIT);
}

/**
 * The implementer's ship when the todo's goal asks for review: the one write path of `todo.submitted`. The caller
 * checked the claim, the gates, the check and the evidence as for a ship. `validation` is what the implementer says
 * it checked, carried to the reviewer so it checks claims rather than guessing.
 */
export function submitInTx(tx: Tx, todo: TodoCore, scope: ReviewScope, validation: string): void {
  const full = getTodo(tx.db, todo.id);
  tx.emit({
    kind: 'todo.submitted',
    goalId: todo.goalId,
    todoId: todo.id,
    data: {
      previousOwner: todo.owner as string,
      round: full.reviewRound + 1,
      host: openTurnHost(tx.db, todo.id, tx.actor.name),
      scope: { base: scope.base, head: scope.head, diffHash: scope.diffHash, files: scope.files },
      validation,
    },
  });
}

/**
 * Why `reviewer` on `host` may not review todo `todo` under the goal's policy, or null when it may: never the
 * implementer; the goal's reviewer agent or host when it names one; another host than the implementer's when it asks.
 */
export function reviewerRefusal(goal: Goal, todo: Todo, round: ReviewRound | null, reviewer: string, host: string | null): string | null {
  if (todo.implementer === reviewer) return `${reviewer} implemented todo ${todo.id}; an agent may not review its own change`;
  const policy = goal.review;
  if (policy === null) return null;
  if (!reviewerFits(policy, reviewer, host))
    return `goal ${goal.id}'s changes are reviewed by ${reviewerWords(policy)}, not ${reviewer}${host ? ` on ${host}` : ''}`;
  if (policy.otherHost && host !== null && round?.implementerHost === host)
    return `goal ${goal.id} asks for a reviewer on another host than the implementer's (${host})`;
  return null;
}

/** Whether the goal's review setting names this agent (or its host) as a reviewer: the one home of that rule. */
export function reviewerFits(policy: ReviewPolicy, reviewer: string, host: string | null): boolean {
  if (policy.reviewerAgent !== null) return policy.reviewerAgent === reviewer;
  return policy.reviewerHost === null || policy.reviewerHost === host;
}

/**
 * Claims a todo's review for `reviewer` (a review turn's agent) for `seconds`: the one write path of
 * `todo.review_claimed` (a claim the reviewer already holds is renewed). Refused when the todo is not in review, a
 * gate on it waits on a person, another reviewer holds it live, or the policy does not let this reviewer review it.
 */
export function claimReviewInTx(tx: Tx, todoId: string, reviewer: Actor, host: string | null, seconds: number): void {
  const todo = getTodo(tx.db, todoId);
  if (todo.status !== 'in_review') throw new RefusedError('not_ready', `todo ${todoId} is ${todo.status}; there is no change to review`);
  const gates = pendingGateIds(tx.db, todoId);
  if (gates.length > 0) throw new GatePendingError(`reviewing todo ${todoId}`, gates);
  const leaseExpiresAt = iso(tx.nowMs + seconds * 1000);
  if (reviewLive(todo, tx.at) && todo.owner !== reviewer.name)
    throw new RefusedError('already_claimed', `todo ${todoId} is being reviewed by ${todo.owner} until ${todo.leaseExpiresAt}`);
  const why = reviewerRefusal(getGoal(tx.db, todo.goalId), todo, reviewRound(tx.db, todoId, todo.reviewRound), reviewer.name, host);
  if (why) throw new NotAllowedError(why);
  tx.emit(
    {
      kind: 'todo.review_claimed',
      goalId: todo.goalId,
      todoId,
      data: { owner: reviewer.name, leaseToken: randomToken(), leaseExpiresAt, host },
    },
    reviewer,
  );
}

/** Ends a reviewer's claim without a verdict (its turn ended, or a person took it back): another may review. */
export function releaseReviewInTx(tx: Tx, todo: Pick<Todo, 'id' | 'goalId' | 'owner'>, note: string | null, as?: Actor): void {
  tx.emit({ kind: 'todo.review_released', goalId: todo.goalId, todoId: todo.id, data: { previousOwner: todo.owner as string, note } }, as);
}

/**
 * Findings as the reviewer gave them, checked one by one: each refusal names the finding and the field. Codex's review
 * mode writes the same facts under its own names (`priority` 0–3, `confidence_score`, `code_location` with an
 * absolute path and a line range): they are read as they are, the path made relative to `root` when inside it.
 */
export function checkFindings(raw: readonly unknown[], root?: string): Finding[] {
  if (!Array.isArray(raw)) throw new InvalidInputError('findings are a list');
  if (raw.length > MAX_FINDINGS) throw new InvalidInputError(`at most ${MAX_FINDINGS} findings a verdict`);
  return raw.map((item, i) => {
    const at = `finding ${i + 1}`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new InvalidInputError(`${at} is not an object`);
    const f = fromCodex(item as Record<string, unknown>, root);
    const severity =
      typeof f.severity === 'string' ? f.severity.toUpperCase() : f.priority === undefined ? undefined : `P${String(f.priority)}`;
    if (!(SEVERITIES as readonly unknown[]).includes(severity))
      throw new InvalidInputError(`${at}: severity must be one of ${SEVERITIES.join(', ')}`);
    const confidence = f.confidence === undefined ? 1 : f.confidence;
    if (typeof confidence !== 'number' || !(confidence >= 0 && confidence <= 1))
      throw new InvalidInputError(`${at}: confidence is a number from 0 to 1`);
    const file = f.file === undefined || f.file === null ? null : f.file;
    if (file !== null && (typeof file !== 'string' || file.length > TEXT_LIMITS.short || /[\0\n]/.test(file)))
      throw new InvalidInputError(`${at}: file is a path in the workspace`);
    const line = f.line === undefined || f.line === null ? null : f.line;
    if (line !== null && !(Number.isInteger(line) && (line as number) >= 1))
      throw new InvalidInputError(`${at}: line is a whole number from 1`);
    const title = requireText(typeof f.title === 'string' ? f.title : '', `${at}'s title`, { max: TEXT_LIMITS.title });
    const body = optionalText(typeof f.body === 'string' ? f.body : undefined, `${at}'s body`, { max: TEXT_LIMITS.summary });
    return { severity: severity as Severity, confidence, file: file as string | null, line: line as number | null, title, body };
  });
}

/** A finding in Codex's review shape, in ours (fields it does not have are left as they are). */
function fromCodex(f: Record<string, unknown>, root: string | undefined): Record<string, unknown> {
  const location = f.code_location as { absolute_file_path?: unknown; line_range?: { start?: unknown } } | undefined;
  if (f.confidence_score === undefined && location === undefined) return f;
  const path = typeof location?.absolute_file_path === 'string' ? location.absolute_file_path : undefined;
  const inside = path !== undefined && root !== undefined && path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
  return {
    ...f,
    confidence: f.confidence ?? f.confidence_score,
    file: f.file ?? inside ?? null,
    line: f.line ?? location?.line_range?.start ?? null,
  };
}

import type { Kernel } from './kernel';
import type { Gate } from './model';
import { getGate } from './gates/gateQueries';
import { decideGate } from './gates/gates';
import { getTodo } from './todos/todoQueries';
import { reviewRound } from './todos/reviewQueries';
import { type VerdictInput, type VerdictOutcome, recordVerdict } from './todos/verdicts';
import { type ApprovedCommit, commitApproved } from './worktrees/approvedCommit';
import { type AutoLanding, landApproved } from './autoLand';

/**
 * A verdict on a change in review as the adapters give it (CLI, MCP, VS Code): the verdict (todos/verdicts.ts), then,
 * for an approval, git's part after the store's write: the approved files committed on the todo's branch
 * (approvedCommit.ts) and the change landed when its goal lets it land on its own (autoLand.ts). Apart from both
 * nouns because it joins them: a todo's verdict and a worktree's branch.
 */
export interface GivenVerdict extends VerdictOutcome {
  /** An approval's change in a worktree, committed on its branch as approved; absent without a worktree. */
  committed?: ApprovedCommit;
  /** Whether an approved change landed on its own; absent where its goal does not ask. */
  landing?: AutoLanding;
}

export async function giveVerdict(kernel: Kernel, todoId: string, input: VerdictInput): Promise<GivenVerdict> {
  const outcome = recordVerdict(kernel, todoId, input);
  if (outcome.outcome !== 'approved') return outcome;
  const scope = kernel.read((db) => reviewRound(db, todoId, outcome.round)?.scope);
  const { todo } = outcome;
  const words = { title: todo.title, implementer: todo.implementer, round: outcome.round };
  const committed = scope ? commitApproved(kernel, todoId, scope, words) : null;
  const landing = await landApproved(kernel, todoId);
  return { ...outcome, ...(committed ? { committed } : {}), ...(landing ? { landing } : {}) };
}

/**
 * A person's decision on a gate, as the adapters take it: a gate on a change in review is answered by a verdict
 * (approving it approves the change, rejecting it sends the change back), any other by the gate's own decision.
 */
export async function decideGateOrReview(kernel: Kernel, gateId: string, decision: 'approved' | 'rejected', note?: string): Promise<Gate> {
  const gate = kernel.read((db) => getGate(db, gateId));
  const todo = gate.status === 'pending' && gate.todoId !== null ? kernel.read((db) => getTodo(db, gate.todoId as string)) : null;
  if (todo?.status !== 'in_review') return decideGate(kernel, gateId, decision, note);
  const summary =
    note?.trim() || (decision === 'approved' ? 'approved as it stands by a person' : 'sent back for another round by a person');
  await giveVerdict(kernel, todo.id, { verdict: decision === 'approved' ? 'approve' : 'request_changes', summary });
  return kernel.read((db) => getGate(db, gateId));
}

import * as vscode from 'vscode';
import { recordVerdict } from '../../kernel/todos/verdicts';
import { reviewRound } from '../../kernel/todos/reviewQueries';
import { clean } from '../../protocol/display';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { ask, resolveTodo } from './pickers';

/**
 * A person's verdict on a change in review, instead of (or after) its reviewer: approving it (the todo is done, its
 * change waits for landing as any other) or sending it back with what should change. The kernel records it as a
 * person's, with the VS Code channel, and decides any gate the review raised when its rounds ran out.
 */
export const approveReview: CommandDefinition = {
  id: COMMANDS.approveReview,
  async run(ctx, arg) {
    const todo = await resolveTodo(ctx, arg, ['in_review'], 'Approve the Change');
    if (!todo) return undefined;
    const round = kernelOf(ctx).read((db) => reviewRound(db, todo.id, todo.reviewRound));
    const said =
      round?.verdict === 'request_changes' || round?.verdict === 'could_not_review'
        ? ` Its reviewer said: ${clean(round.summary ?? '')}`
        : '';
    const choice = await vscode.window.showWarningMessage(
      `Approve the change of ${todo.id} ${clean(todo.title)}?`,
      {
        modal: true,
        detail: `${clean(todo.implementer ?? 'Its agent')} made it (review round ${todo.reviewRound}). Approving marks it done as your decision, without waiting for its reviewer.${said}`,
      },
      'Approve',
    );
    if (choice !== 'Approve') return undefined;
    const note = await ask({ title: `LoopX: Approve ${todo.id}`, prompt: 'Why it is good to go (optional)' });
    if (note === undefined) return undefined;
    return recordVerdict(kernelOf(ctx), todo.id, { verdict: 'approve', summary: note || 'approved by a person' }).todo;
  },
};

export const requestChanges: CommandDefinition = {
  id: COMMANDS.requestChanges,
  async run(ctx, arg) {
    const todo = await resolveTodo(ctx, arg, ['in_review'], 'Send the Change Back');
    if (!todo) return undefined;
    const summary = await ask({
      title: `LoopX: Send ${todo.id} back`,
      prompt: 'What should change? Its implementer reads this in its next turn',
      required: true,
    });
    if (summary === undefined) return undefined;
    return recordVerdict(kernelOf(ctx), todo.id, { verdict: 'request_changes', summary }).todo;
  },
};

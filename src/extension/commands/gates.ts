import * as vscode from 'vscode';
import type { Gate } from '../../kernel/model';
import { clean, clockTime } from '../../protocol/display';
import { askGate as askOp } from '../../kernel/gates/gates';
import { decideGateOrReview } from '../../kernel/approvals';
import { getGate } from '../../kernel/gates/gateQueries';
import { type CommandDefinition, kernelOf } from './context';
import type { Services } from '../services';
import { COMMANDS } from './commandIds';
import { ask, resolveGate, resolveGoal, resolveTodo } from './pickers';
import { decideInModal } from './decision';

export const askGate: CommandDefinition = {
  id: COMMANDS.askGate,
  async run(ctx, arg) {
    const subject = await vscode.window.showQuickPick(
      [
        { label: 'On a todo', value: 'todo' },
        { label: 'On a whole goal', value: 'goal' },
      ],
      { title: 'LoopX: Ask Gate' },
    );
    if (!subject) return undefined;
    const target =
      subject.value === 'todo'
        ? { todoId: (await resolveTodo(ctx, arg, ['open', 'claimed', 'blocked'], 'Ask Gate on'))?.id }
        : { goalId: (await resolveGoal(ctx, arg))?.id };
    if (!target.todoId && !target.goalId) return undefined;
    const question = await ask({ title: 'LoopX: Ask Gate', prompt: 'The decision needed, with what you recommend', required: true });
    return question === undefined ? undefined : askOp(kernelOf(ctx), { ...target, question });
  },
};

/** Approve and reject decide in a modal that shows the question: a decision should be read before it is made. */
async function decide(ctx: Services, arg: unknown, decision: 'approved' | 'rejected'): Promise<Gate | undefined> {
  const verb = decision === 'approved' ? 'Approve' : 'Reject';
  const asked = await resolveGate(ctx, arg, `${verb} Gate`);
  if (!asked) return undefined;
  // A notification or a view may show a gate someone has decided since: say who decided it, never a silent no-op.
  const gate = kernelOf(ctx).read((db) => getGate(db, asked.id));
  if (gate.status !== 'pending') {
    const when = gate.decidedAt ? ` at ${clockTime(gate.decidedAt, Date.now())}` : '';
    void vscode.window.showInformationMessage(
      `LoopX: gate ${gate.id} was already ${gate.status === 'cancelled' ? 'cancelled' : `${gate.status} by ${clean(gate.decidedBy ?? 'someone')}`}${when}; nothing to decide.`,
    );
    return undefined;
  }
  const on = gate.todoId ? `todo ${gate.todoId}` : `goal ${gate.goalId}`;
  const decided = await decideInModal({
    verb,
    message: `${verb} gate ${gate.id} on ${on}?`,
    detail: `${clean(gate.question)}\n\nAsked by ${clean(gate.askedBy)}.`,
    noteTitle: `LoopX: ${verb} ${gate.id}`,
    notePrompt: 'Note for the agent',
  });
  if (!decided) return undefined;
  const result = await decideGateOrReview(kernelOf(ctx), gate.id, decision, decided.note);
  ctx.log.info(`${decision} gate ${gate.id}`);
  return result;
}

export const approveGate: CommandDefinition = { id: COMMANDS.approveGate, run: (ctx, arg) => decide(ctx, arg, 'approved') };
export const rejectGate: CommandDefinition = { id: COMMANDS.rejectGate, run: (ctx, arg) => decide(ctx, arg, 'rejected') };

import type { Command } from '../command';
import { decideGateOrReview } from '../../kernel/approvals';
import { getGate } from '../../kernel/gates/gateQueries';
import { parseId } from '../../kernel/validate';
import { gateLine, Painter } from '../format';

/** approve and reject are the same human-only decision with a different outcome. */
function decide(verb: 'approve' | 'reject', status: 'approved' | 'rejected'): Command {
  return {
    name: ['gate', verb],
    summary: `${verb} a pending gate (humans only, in an interactive terminal: you type the gate id to confirm)`,
    humanOnly: true,
    mutates: true,
    positionals: [{ name: 'ID', description: 'gate id, e.g. Q2', required: true }],
    flags: { note: { type: 'string', value: 'N', description: 'why; the agent reads it' } },
    async run(ctx) {
      const id = parseId('gate', ctx.args.positionals[0]);
      const kernel = ctx.kernel();
      const gate = kernel.read((db) => getGate(db, id));
      // The question is shown before the decision is typed: a decision should be read before it is made.
      const human = ctx.confirmHuman(`${verb} gate ${id}`, id, [
        `asked by ${gate.askedBy} on ${gate.todoId ?? gate.goalId}, ${gate.status}:`,
        ...gate.question.split('\n'),
      ]);
      const decided = await decideGateOrReview(kernel.as(human), id, status, ctx.args.str('note'));
      return {
        data: decided,
        text: `${status === 'approved' ? 'Approved' : 'Rejected'} ${gateLine(new Painter(ctx.color), decided, Date.now())}`,
      };
    },
  };
}

export const gateApprove = decide('approve', 'approved');
export const gateReject = decide('reject', 'rejected');

import type { Command } from '../command';
import { decideGate } from '../../kernel/ops/gates';
import { parseId } from '../../kernel/validate';
import { gateLine, Painter } from '../format';

/** approve and reject are the same human-only decision with a different outcome. */
function decide(verb: 'approve' | 'reject', status: 'approved' | 'rejected'): Command {
  return {
    name: ['gate', verb],
    summary: `${verb} a pending gate (humans only: refused when an agent identity is set)`,
    humanOnly: true,
    mutates: true,
    positionals: [{ name: 'ID', description: 'gate id, e.g. Q2', required: true }],
    flags: { note: { type: 'string', value: 'N', description: 'why; the agent reads it' } },
    run(ctx) {
      const gate = decideGate(ctx.kernel(), parseId('gate', ctx.args.positionals[0]), status, ctx.args.str('note'));
      return { data: gate, text: `${status === 'approved' ? 'Approved' : 'Rejected'} ${gateLine(new Painter(ctx.color), gate, Date.now())}` };
    },
  };
}

export const gateApprove = decide('approve', 'approved');
export const gateReject = decide('reject', 'rejected');

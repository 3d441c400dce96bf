import type { Command } from '../command';
import { finishTurn } from '../../kernel/ops/turns';
import { parseId } from '../../kernel/validate';

export const turnFinish: Command = {
  name: ['turn', 'finish'],
  summary: 'end a turn: judge it from what was written back, spend quota only for validated progress, leave a continuation',
  description: 'result kinds: validated_completion, validated_progress, user_action_required, wait, host_failure, validation_failed.',
  mutates: true,
  positionals: [{ name: 'ID', description: 'turn id, e.g. R3', required: true }],
  flags: { 'exit-code': { type: 'int', value: 'N', required: true, description: "the host's exit code (-1 when unknown)" } },
  run(ctx) {
    const turn = finishTurn(ctx.kernel(), parseId('turn', ctx.args.positionals[0]), ctx.args.num('exit-code') as number);
    return { data: turn, text: `Finished ${turn.id}: ${turn.resultKind}; quota ${turn.spent ? 'spent' : 'not spent'}.` };
  },
};

import type { Command } from '../command';
import { finishTurn } from '../../kernel/turns/turnFinish';
import { parseId } from '../../kernel/validate';
import { describeRun, turnEvidence } from '../../kernel/evidence/evidenceQueries';
import { clean } from '../format';
import { usageWords } from '../../shared/usageWords';

/** --usage's JSON; text that is not JSON is passed on as it is, to be recorded as unknown with a warning. */
function usageFlag(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export const turnFinish: Command = {
  name: ['turn', 'finish'],
  summary: 'end a turn: judge it from what was written back, spend quota only for validated progress, leave a continuation',
  description:
    'result kinds: validated_completion, validated_progress, user_action_required, wait, host_failure, validation_failed. ' +
    "data: the turn and evidence: { agent: how many entries are the agent's word, kernel: [commands loopx ran, with exit codes] }. " +
    'usage: what the turn used, read from its output (Claude Code stream-json, Codex --json, or a line ' +
    '`loopx-usage: {"inputTokens":N,"outputTokens":N,"cachedTokens":N,"costUsd":X,"model":"…"}`); --usage gives it for a host ' +
    'whose output says nothing. A report that fails the checks is recorded as unknown, with usageWarnings saying why. ' +
    "A turn loopx run or VS Code started is finished by that launcher from the host's own report: its agent's finish is " +
    'refused (exit 3, not_allowed).',
  mutates: true,
  storeOnly: true,
  positionals: [{ name: 'ID', description: 'turn id, e.g. R3', required: true }],
  flags: {
    'exit-code': { type: 'int', value: 'N', required: true, description: "the host's exit code (-1 when unknown)" },
    usage: {
      type: 'string',
      value: 'JSON',
      description: 'what the turn used, e.g. \'{"inputTokens":1200,"outputTokens":300,"costUsd":0.02}\' (when its output says nothing)',
    },
  },
  run(ctx) {
    const kernel = ctx.kernel();
    const turn = finishTurn(
      kernel,
      parseId('turn', ctx.args.positionals[0]),
      ctx.args.num('exit-code') as number,
      usageFlag(ctx.args.str('usage')),
    );
    // What the judgement rests on: commands the kernel ran (kernel-verified) and what the agent wrote (its word).
    const evidence = kernel.read((db) => turnEvidence(db, turn));
    const verified = evidence.kernel.map((run) => `  kernel-verified: ${clean(describeRun(run))}${run.check ? ' (acceptance check)' : ''}`);
    const text = [`Finished ${turn.id}: ${turn.resultKind}; quota ${turn.spent ? 'spent' : 'not spent'}.`, ...verified];
    text.push(`  used: ${usageWords(turn.usage)}`, ...turn.usageWarnings.map((w) => `  warning: ${w}`));
    if (evidence.agent) text.push(`  ${evidence.agent} evidence entr${evidence.agent === 1 ? 'y' : 'ies'} on the agent's word`);
    return { data: { ...turn, evidence }, text: text.join('\n') };
  },
};

import type { Command } from '../command';
import { InvalidInputError } from '../../kernel/errors';
import { parseId } from '../../kernel/validate';
import { type Readiness, goalReadiness } from '../../runtime/goalReadiness';

const MARK = { ok: '✓', warn: '!', fail: '✗' } as const;

export function readinessText(r: Readiness): string {
  const head = `${r.goalId} ${r.title}: ${r.ready ? 'ready to leave running' : 'not ready to leave running'} (score ${r.score}/100${r.host ? `, host ${r.host}` : ''})`;
  const lines = r.reasons.flatMap((reason) => [
    `  ${MARK[reason.level]} ${reason.sentence}`,
    ...(reason.fix && reason.level !== 'ok' ? [`      fix: ${reason.fix}`] : []),
  ]);
  return [head, ...lines].join('\n');
}

export const ready: Command = {
  name: ['ready'],
  summary: 'whether a goal is ready to be left running: a score, each reason with its fix (changes nothing)',
  description:
    'Checks what would stop a goal left alone for a night: it is active; its host is installed and accepts its\n' +
    "command; turns, caps and the schedule's recurring todos fit its budget; nothing waits on a person (gates,\n" +
    'blocked todos, checks to allow); its recent turns made progress; no claim outlived its lease; its worktree\n' +
    'base exists; it has work left; a loopx run on this machine serves it; and whether a turn would start now.\n' +
    'The host is --host, else the goal’s agent (loopx goal set-host), else a live runner’s, else its last turn’s. Exit 0 either way: `ready` says the verdict.',
  positionals: [{ name: 'GOAL', description: 'the goal, e.g. G1', required: true }],
  flags: {
    host: {
      type: 'string',
      value: 'HOST',
      description: 'judge this host (claude, codex, opencode, gemini, copilot, qwen, pi, or one of yours)',
    },
  },
  readOnly: true,
  examples: ['loopx ready G1', 'loopx ready G1 --host codex --json'],
  async run(ctx) {
    const goalId = parseId('goal', ctx.args.positionals[0] as string);
    const host = ctx.args.str('host');
    if (host !== undefined && !/^[a-z][a-z0-9-]{0,39}$/.test(host))
      throw new InvalidInputError(
        `--host ${JSON.stringify(host)} is not a host name`,
        'e.g. claude, codex, opencode, gemini, copilot, qwen, pi',
      );
    const readiness = await goalReadiness(ctx.kernel(), goalId, { ...(host ? { host } : {}), env: ctx.env });
    return { data: readiness, text: readinessText(readiness) };
  },
};

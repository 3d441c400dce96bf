import type { Command } from '../command';
import { runEvidence } from '../../kernel/evidence/evidenceRun';
import { InvalidInputError } from '../../kernel/errors';
import { clean, evidenceLine, Painter } from '../format';

export const evidenceRun: Command = {
  name: ['evidence', 'run'],
  summary: "run a command and record what it did as evidence from the kernel, not anyone's word; exits with its status",
  description: [
    'The command runs from the workspace root as given after `--` (no shell unless --shell), with LOOPX_ROOT, LOOPX_GOAL',
    'and LOOPX_TODO set, and is killed with its whole process group after --run-limit. Its exit code, duration, the',
    'end of its output and the SHA-256 of all of it are recorded as evidence with source "kernel". --check runs the',
    'acceptance check a human set on the todo (or its goal): `todo ship` needs a passing run of it after the last claim.',
    'It runs in a bubblewrap sandbox where there is one (the workspace writable except .loopx/, no network); run.sandbox',
    'says which, or why it had none.',
    "The evidence is recorded whatever the command answers; loopx then exits with the command's own status (124 when",
    'killed at the limit, 127 when not found), and with --json a failing command is {"ok":false,"error":{"code":',
    '"command_failed",…},"data":<the evidence>}.',
  ].join('\n'),
  mutates: true,
  positionals: [{ name: 'CMD ARGS…', description: 'the command and its arguments, after --', rest: true }],
  flags: {
    todo: { type: 'string', value: 'T', description: 'the todo it is evidence for' },
    goal: { type: 'string', value: 'G', description: 'or the goal' },
    kind: { type: 'string', value: 'K', description: 'a short word such as test, build, lint (default test)' },
    shell: { type: 'boolean', description: 'run the arguments as one shell command line (sh -c)' },
    check: { type: 'boolean', description: 'run the acceptance check that applies (no command after --)' },
    'run-limit': { type: 'duration', value: 'D', description: 'kill it after this long (default 30m)' },
  },
  examples: [
    'loopx evidence run --todo T3 --check',
    'loopx evidence run --todo T3 --kind test -- npm test -- --reporter=dot',
    'loopx evidence run --goal G1 --shell -- "npm run build && npm run lint"',
  ],
  async run(ctx) {
    const a = ctx.args;
    if (a.beforeDashDash > 0)
      throw new InvalidInputError(`put the command after --, e.g. loopx evidence run --todo T1 -- ${a.positionals.join(' ')}`);
    const { evidence, result } = await runEvidence(ctx.kernel(), {
      todoId: a.id('todo'),
      goalId: a.id('goal'),
      kind: a.str('kind'),
      argv: a.positionals,
      shell: a.bool('shell'),
      check: a.bool('check'),
      runLimitSeconds: a.num('run-limit'),
      env: ctx.env,
    });
    const p = new Painter(ctx.color);
    const tail = result.outputTail.trimEnd().split('\n').slice(-20).map(clean).join('\n');
    const text = `${tail ? `${tail}\n` : ''}Recorded ${evidenceLine(p, evidence, Date.now())}`;
    if (result.exitCode === 0) return { data: evidence, text };
    const status =
      result.exitCode ??
      (result.timedOut
        ? 124
        : result.error?.startsWith('command not found')
          ? 127
          : result.error?.startsWith('command not executable')
            ? 126
            : 1);
    const hint = tail ? `output (end):\n${tail.split('\n').slice(-12).join('\n')}` : undefined;
    return {
      data: evidence,
      text,
      failure: { code: 'command_failed', message: `${evidence.summary} (recorded as evidence #${evidence.seq})`, hint, exitCode: status },
    };
  },
};

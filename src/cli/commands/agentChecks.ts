import type { Command } from '../command';
import { allowChecks, approveMonitor } from '../../kernel/monitors/monitors';
import { getMonitor } from '../../kernel/monitors/monitorQueries';
import { InvalidInputError } from '../../kernel/errors';
import { parseId } from '../../kernel/validate';
import { goalLine, monitorLine, Painter } from '../format';
import { getGoal } from '../../kernel/goals/goalQueries';

export const monitorApprove: Command = {
  name: ['monitor', 'approve'],
  summary: "let an agent's monitor check run (humans only): it shows the command and asks for the monitor id",
  description: [
    "loopx runs a monitor's check later, unattended and outside the agent's sandbox, so a check an agent sets runs only",
    'when it matches a pattern a person allowed for the goal (loopx goal allow-checks) or once a person approved it',
    'here or in VS Code. Until then it waits and nothing runs. Recorded as monitor.approved with the channel.',
  ].join('\n'),
  humanOnly: true,
  mutates: true,
  positionals: [{ name: 'ID', description: 'monitor id, e.g. M2', required: true }],
  examples: ['loopx monitor approve M2'],
  run(ctx) {
    const id = parseId('monitor', ctx.args.positionals[0]);
    const monitor = ctx.kernel().read((db) => getMonitor(db, id));
    const human = ctx.confirmHuman(`let monitor ${id}'s check run, unattended, from the workspace root`, id, [
      `check: ${monitor.check ?? '(a timer runs nothing)'}`,
      `set by ${monitor.addedBy} for ${monitor.todoId}`,
    ]);
    const approved = approveMonitor(ctx.kernel().as(human), id);
    return { data: approved, text: `Allowed ${monitorLine(new Painter(ctx.color), approved, Date.now())}` };
  },
};

export const goalAllowChecks: Command = {
  name: ['goal', 'allow-checks'],
  summary: 'set the patterns of monitor checks agents may set for a goal without asking (humans only)',
  description: [
    'A check matches a pattern when the whole command does, `*` standing for any run of characters except ; & | < > $',
    '` \\ ( ) { } and line breaks: `gh run view *` lets an agent watch any CI run, never `gh run view 1; sh`. Waiting',
    "checks that a new pattern covers run at the next tick. The patterns replace the goal's; --clear removes them all.",
  ].join('\n'),
  humanOnly: true,
  mutates: true,
  positionals: [{ name: 'ID', description: 'goal id', required: true }],
  flags: {
    pattern: { type: 'string', value: 'P', repeat: true, description: 'a pattern (repeatable), e.g. "gh run view *"' },
    clear: { type: 'boolean', description: 'allow none: every check an agent sets waits for a person' },
  },
  examples: [
    'loopx goal allow-checks G1 --pattern "gh run view *" --pattern "curl -fsS https://staging.example.com/*"',
    'loopx goal allow-checks G1 --clear',
  ],
  run(ctx) {
    const id = parseId('goal', ctx.args.positionals[0]);
    const patterns = ctx.args.list('pattern');
    if ((patterns.length === 0) === !ctx.args.bool('clear')) throw new InvalidInputError('give --pattern P (repeatable) or --clear');
    const current = ctx.kernel().read((db) => getGoal(db, id)).allowedChecks;
    const human = ctx.confirmHuman(`set the checks agents may set for goal ${id} without asking`, id, [
      ...(patterns.length ? patterns.map((p) => `allow: ${p}`) : ['allow: none']),
      `now: ${current.length ? current.join(' · ') : 'none'}`,
    ]);
    const goal = allowChecks(ctx.kernel().as(human), id, patterns);
    return {
      data: goal,
      text: `${goal.allowedChecks.length ? `Agents' checks matching ${goal.allowedChecks.map((p) => `\`${p}\``).join(', ')} run unasked` : 'Every check an agent sets waits for a person'} in ${goalLine(new Painter(ctx.color), goal)}`,
    };
  },
};

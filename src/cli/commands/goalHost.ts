import type { Command } from '../command';
import { InvalidInputError } from '../../kernel/errors';
import { setGoalHost } from '../../kernel/goals/goalHost';
import { parseId } from '../../kernel/validate';
import { HOST_IDS } from '../../shared/hostCatalog';
import { personHosts } from '../../runtime/personHosts';
import { goalLine, Painter } from '../format';

export const goalSetHost: Command = {
  name: ['goal', 'set-host'],
  summary: "choose the agent CLI a goal's turns run on, or --clear to choose at each run (humans only)",
  description: [
    "Run Turn in VS Code offers the goal's agent first; VS Code's automatic turns and `loopx run --goal G` without --host",
    "use it; a `loopx run` on another host leaves the goal's turns alone. HOST: a built-in host, custom, or one of your",
    "own (hosts.json). An agent may not choose it: the host decides what bounds the goal's agents.",
  ].join('\n'),
  humanOnly: true,
  mutates: true,
  positionals: [
    { name: 'ID', description: 'goal id', required: true },
    { name: 'HOST', description: 'e.g. claude, codex, opencode, copilot, custom' },
  ],
  flags: { clear: { type: 'boolean', description: 'no agent of its own: the host is chosen at each run' } },
  examples: ['loopx goal set-host G1 claude', 'loopx goal set-host G1 --clear'],
  run(ctx) {
    const id = parseId('goal', ctx.args.positionals[0]);
    const given = ctx.args.positionals[1];
    const clear = ctx.args.bool('clear');
    if ((given === undefined) === !clear)
      throw new InvalidInputError('give a HOST, or --clear (not both)', 'e.g. loopx goal set-host G1 claude');
    const hosts = [...HOST_IDS, ...personHosts(ctx.env).map((h) => h.id)];
    if (given !== undefined && !hosts.includes(given))
      throw new InvalidInputError(`no host is called ${JSON.stringify(given)}: one of ${hosts.join(', ')}`);
    const host = given ?? null;
    const human = ctx.confirmHuman(host ? `run goal ${id}'s turns on ${host}` : `choose the agent at each run of goal ${id}`, id);
    const goal = setGoalHost(ctx.kernel().as(human), id, host);
    return {
      data: goal,
      text: `${goal.host ? `Turns run on ${goal.host}` : 'The agent is chosen at each run'} for ${goalLine(new Painter(ctx.color), goal)}`,
    };
  },
};

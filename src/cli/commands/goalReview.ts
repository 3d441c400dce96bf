import type { Command } from '../command';
import { InvalidInputError } from '../../kernel/errors';
import { reviewPolicy, setGoalReview } from '../../kernel/goals/goalReview';
import { reviewerWords } from '../../shared/reviewWords';
import { parseId } from '../../kernel/validate';
import { goalLine, Painter } from '../format';

export const goalSetReview: Command = {
  name: ['goal', 'set-review'],
  summary: "have another agent review each change a goal's agents ship before it is done, or --off (humans only)",
  description: [
    "With review on, an agent's `todo ship` sends its change to review: the todo waits In review until a reviewer",
    'approves it (done), asks for changes (back to work, the comments its continuation) or could not review it. Past',
    '--rounds rounds of changes, a gate asks you. A reviewer is never the implementer. An agent may not change this.',
    'With --auto-land, an approved change in a worktree whose acceptance check passed is merged into its base on its',
    'own (fast-forward, else a merge commit), recorded as the kernel acting on this decision; anything else waits for you.',
  ].join('\n'),
  humanOnly: true,
  mutates: true,
  positionals: [{ name: 'ID', description: 'goal id', required: true }],
  flags: {
    'reviewer-host': { type: 'string', value: 'HOST', description: 'agents on this host review (e.g. codex); default: any host' },
    'reviewer-agent': { type: 'string', value: 'NAME', description: 'only this agent reviews' },
    'other-host': { type: 'boolean', description: "the reviewer runs on another host than the implementer's (on with --reviewer-host)" },
    rounds: { type: 'string', value: 'N', description: 'rounds of changes before a person decides (1–10, default 3)' },
    blocking: { type: 'string', value: 'LIST', description: 'severities that block approval (default P0,P1,P2)' },
    'auto-land': { type: 'boolean', description: 'an approved change whose acceptance check passed merges on its own' },
    off: { type: 'boolean', description: 'no review: an agent’s ship is done at once' },
  },
  examples: [
    'loopx goal set-review G1 --reviewer-host codex',
    'loopx goal set-review G1 --rounds 2 --blocking P0,P1',
    'loopx goal set-review G1 --reviewer-host codex --auto-land',
    'loopx goal set-review G1 --off',
  ],
  run(ctx) {
    const id = parseId('goal', ctx.args.positionals[0]);
    const off = ctx.args.bool('off');
    const given = ['reviewer-host', 'reviewer-agent', 'other-host', 'rounds', 'blocking', 'auto-land'].filter((f) => ctx.args.has(f));
    if (off && given.length) throw new InvalidInputError(`--off takes no other flag (got --${given.join(', --')})`);
    const rounds = ctx.args.str('rounds');
    if (rounds !== undefined && !/^\d+$/.test(rounds)) throw new InvalidInputError('--rounds is a whole number from 1 to 10');
    const policy = off
      ? null
      : reviewPolicy({
          reviewerHost: ctx.args.str('reviewer-host'),
          reviewerAgent: ctx.args.str('reviewer-agent'),
          otherHost: ctx.args.has('other-host') ? true : undefined,
          maxRounds: rounds === undefined ? undefined : Number(rounds),
          blocking: ctx.args
            .str('blocking')
            ?.split(',')
            .map((s) => s.trim().toUpperCase()),
          autoLand: ctx.args.bool('auto-land'),
        });
    const landing = policy?.autoLand ? ', approved changes whose check passed land on their own' : '';
    const said = policy ? `${reviewerWords(policy)} reviews each change, ${policy.maxRounds} round(s) at most${landing}` : 'no review';
    const human = ctx.confirmHuman(`set goal ${id}'s review: ${said}`, id);
    const goal = setGoalReview(ctx.kernel().as(human), id, policy);
    return { data: goal, text: `${goal.review ? `Review on (${said})` : 'Review off'} for ${goalLine(new Painter(ctx.color), goal)}` };
  },
};

import type { Command } from '../command';
import { createGoal, setGoalStatus } from '../../kernel/goals/goals';
import { goalLine, Painter, policyWords } from '../format';
import { reviewPolicy } from '../../kernel/goals/goalReview';

export const goalCreate: Command = {
  name: ['goal', 'create'],
  summary: 'create a goal with its quota policy (paused until a human starts it; a person at a terminal is asked at once)',
  mutates: true,
  flags: {
    title: { type: 'string', value: 'T', required: true, description: 'short title (one line, up to 200 characters)' },
    objective: { type: 'string', value: 'O', description: 'what done looks like; agents read it every turn' },
    scope: { type: 'string', value: 'GLOB', repeat: true, description: 'workspace-relative path or glob the work may touch (repeatable)' },
    turns: { type: 'int', value: 'N', description: 'turns allowed per window (default 20)' },
    'window-hours': { type: 'number', value: 'H', description: 'length of the quota window in hours (default 24)' },
    'max-concurrent': { type: 'int', value: 'N', description: 'turns that may run at once (default 1)' },
    cooldown: { type: 'duration', value: 'DURATION', description: 'pause after each spent turn, e.g. 10m (default none)' },
    tokens: { type: 'int', value: 'N', description: 'tokens (in and out) the turns may use per window (default no cap)' },
    dollars: { type: 'number', value: 'USD', description: 'US dollars the turns may cost per window, e.g. 10 (default no cap)' },
    check: {
      type: 'string',
      value: 'CMD',
      description: 'acceptance check (humans only, confirmed at an interactive terminal): todos ship only after loopx ran it, passing',
    },
    worktree: {
      type: 'string',
      value: 'BASE',
      description: "each todo's turns work in their own git worktree, on a branch loopx/<todo>-<title> made from BASE (e.g. main)",
    },
    review: { type: 'boolean', description: 'another agent reviews each change before it is done (any agent but the implementer)' },
    'reviewer-host': { type: 'string', value: 'HOST', description: 'review by agents on this host (implies --review), e.g. codex' },
  },
  examples: ['loopx goal create --title "Ship the parser" --objective "All fixtures parse" --scope "src/parser/**" --turns 12'],
  run(ctx) {
    const a = ctx.args;
    const check = a.str('check');
    // A check is a person's decision (as with `goal set-check`): a person at a terminal types `check` to confirm,
    // and the goal, made through that channel, starts at once.
    const kernel =
      check !== undefined && ctx.canConfirm
        ? ctx.kernel().as(ctx.confirmHuman(`create goal "${a.str('title') as string}" with the acceptance check \`${check}\``, 'check'))
        : ctx.kernel();
    let goal = createGoal(kernel, {
      title: a.str('title') as string,
      objective: a.str('objective'),
      scope: a.list('scope'),
      turnsPerWindow: a.num('turns'),
      windowHours: a.num('window-hours'),
      maxConcurrent: a.num('max-concurrent'),
      cooldownSeconds: a.num('cooldown'),
      tokensPerWindow: a.num('tokens'),
      dollarsPerWindow: a.num('dollars'),
      check,
      worktree: a.str('worktree'),
      // Asking for review is anyone's to do, an agent proposing the goal included; changing it later is a person's.
      ...(a.bool('review') || a.has('reviewer-host') ? { review: reviewPolicy({ reviewerHost: a.str('reviewer-host') }) } : {}),
    });
    // Created paused (only VS Code or a confirmed terminal starts work and spends its budget); a person at a
    // terminal is asked to start it at once. Not typing the id leaves it paused: the goal exists either way.
    if (goal.status === 'paused' && ctx.canConfirm) {
      try {
        const human = ctx.confirmHuman(`start goal ${goal.id} now (Enter leaves it paused)`, goal.id, [
          goal.title,
          `budget: ${policyWords(goal.policy)}`,
        ]);
        goal = setGoalStatus(kernel.as(human), goal.id, 'active');
      } catch (error) {
        if ((error as { code?: string }).code !== 'not_confirmed') throw error;
      }
    }
    const next =
      goal.status === 'paused'
        ? `It is paused until a human starts it: loopx goal resume ${goal.id} (in a terminal) or Resume Goal in VS Code.`
        : `Next: loopx todo add --goal ${goal.id} --title "…"`;
    return { data: goal, text: `Created ${goalLine(new Painter(ctx.color), goal)}\n${next}` };
  },
};

import type { Command } from '../command';
import { addTodo } from '../../kernel/todos/todos';
import { parseId } from '../../kernel/validate';
import { Painter, todoLine } from '../format';

export const todoAdd: Command = {
  name: ['todo', 'add'],
  summary: 'add a todo to a goal',
  mutates: true,
  // A check is confirmed by a person at the terminal: a run again (Kernel.settle) would ask them twice.
  storeOnly: (args) => !args.has('check'),
  flags: {
    goal: { type: 'string', value: 'G', required: true, description: 'the goal it belongs to' },
    title: { type: 'string', value: 'T', required: true, description: 'short title (one line)' },
    detail: { type: 'string', value: 'D', description: 'acceptance: how anyone can tell it is done' },
    priority: { type: 'int', value: 'P', description: '0 (highest) to 3; default 2' },
    'depends-on': { type: 'string', value: 'TODO', repeat: true, description: 'a todo that must ship first (repeatable)' },
    check: {
      type: 'string',
      value: 'CMD',
      description:
        "acceptance check (humans only, confirmed at an interactive terminal; default: the goal's): ship needs a passing kernel run of it",
    },
    every: {
      type: 'duration',
      value: 'D',
      description: 'recurring: when this occurrence ships or is killed, the next is due D after it (1m to 366d)',
    },
    at: { type: 'string', value: 'HH:MM', description: 'with --every of whole days: the time of day each occurrence is due' },
    cron: {
      type: 'string',
      value: 'EXPR',
      description: 'recurring on a cron schedule instead: 5 fields ("0 9 * * 1-5") or @daily, @weekly…',
    },
    tz: { type: 'string', value: 'ZONE', description: "time zone for --at and --cron (IANA, e.g. Europe/Berlin; default: this machine's)" },
    review: { type: 'boolean', description: "another agent reviews its change before it is done, whatever its goal's setting" },
  },
  description: [
    'A recurring todo (--every or --cron) is a series: each occurrence is its own todo; when one ships or is killed the',
    'kernel adds the next, which waits (not ready) until its time. --at and cron fields are read in the --tz time zone,',
    'recorded with the todo so every machine computes the same times (default: the time zone of the machine adding it).',
    'A plain --every is due at once, then every D after the previous due time; slots missed while one stayed open are',
    'skipped. Quota still decides whether a turn runs. `todo kill ID --end-series` ends a series.',
  ].join('\n'),
  examples: [
    'loopx todo add --goal G1 --title "Parse headers" --detail "tests/headers pass" --priority 1 --depends-on T1',
    'loopx todo add --goal G2 --title "Daily dependency report" --every 1d --at 09:00 --tz Europe/Berlin',
    'loopx todo add --goal G2 --title "Triage new issues" --cron "0 9 * * 1-5"',
  ],
  run(ctx) {
    const a = ctx.args;
    const goalId = parseId('goal', a.str('goal'));
    // A check is a person's decision (as with `todo set-check`): a person at a terminal types the goal id to confirm.
    const check = a.str('check');
    const kernel =
      check !== undefined && ctx.canConfirm
        ? ctx
            .kernel()
            .as(ctx.confirmHuman(`add a todo to ${goalId} with the acceptance check \`${check}\``, goalId, [a.str('title') as string]))
        : ctx.kernel();
    const todo = addTodo(kernel, {
      goalId,
      title: a.str('title') as string,
      detail: a.str('detail'),
      priority: a.num('priority'),
      dependsOn: a.list('depends-on').map((d) => parseId('todo', d)),
      check,
      recurrence: { every: a.num('every'), at: a.str('at'), cron: a.str('cron'), tz: a.str('tz') },
      review: a.bool('review'),
    });
    return { data: todo, text: `Added ${todoLine(new Painter(ctx.color), todo, Date.now())}` };
  },
};

import type { Command } from '../command';
import { HOOK_TRIGGERS } from '../../kernel/hooks/hookEventSchemas';
import {
  HOOK_TIMEOUT,
  type Hook,
  type HookRun,
  addHook,
  getHook,
  hookRuns,
  listHooks,
  nextHookId,
  parseTriggers,
  removeHook,
} from '../../kernel/hooks/hooks';
import { dispatchHooks, runHook } from '../../kernel/hooks/dispatch';
import type { HookOccasion } from '../../kernel/hooks/triggers';
import { NotAllowedError } from '../../kernel/errors';
import { parseId } from '../../kernel/validate';
import { clean } from '../format';
import { getGoal } from '../../kernel/goals/goalQueries';
import { iso } from '../../kernel/time';

const WHEN = HOOK_TRIGGERS.join(', ');

function hookLine(h: Hook): string {
  const where = h.goalId ? ` for ${h.goalId}` : '';
  return `${h.id} on ${h.on.join(', ')}${where} (limit ${h.timeoutSeconds} s${h.status === 'removed' ? ', removed' : ''}): ${clean(h.command)}`;
}

function runLine(r: HookRun): string {
  const outcome = r.endedAt === null ? 'did not finish (the runner or window that took it stopped)' : (r.error ?? `exit ${r.exitCode}`);
  return `  ${r.claimedAt} ${r.hookId} for event ${r.seq} (${r.trigger}) by ${clean(r.claimedBy)}: ${outcome}`;
}

export const hookAdd: Command = {
  name: ['hook', 'add'],
  summary: 'run a command of your choosing when something happens you must hear about (humans only)',
  description: [
    `Events: ${WHEN} (repeat --on, or --on all).`,
    'The command runs with the shell from your home folder (never the workspace, whose files agents may write;',
    'LOOPX_ROOT names it), in whichever `loopx run` runner, VS Code window (trusted workspaces) or `loopx hook dispatch`',
    'sees the event first, once per event. It gets LOOPX_EVENT, LOOPX_TITLE, LOOPX_SUMMARY, LOOPX_SUBJECT, LOOPX_GOAL,',
    'LOOPX_TODO, LOOPX_EVENT_SEQ, LOOPX_EVENT_AT, LOOPX_ACTOR, LOOPX_HOOK, LOOPX_ROOT and LOOPX_WORKSPACE, and the whole',
    'event as JSON on stdin. Past --timeout its process group is killed; a failure is recorded and never stops the loop.',
    "A hook runs unattended outside any sandbox, so it is a person's decision: VS Code, or here with its id typed.",
  ].join('\n'),
  humanOnly: true,
  mutates: true,
  flags: {
    on: { type: 'string', value: 'EVENT', repeat: true, required: true, description: `${WHEN}, or all` },
    command: { type: 'string', value: 'CMD', required: true, description: 'the shell command to run' },
    goal: { type: 'string', value: 'G', description: "only this goal's events (default: every goal's)" },
    timeout: { type: 'duration', value: 'D', description: `kill it after this long (default ${HOOK_TIMEOUT.default}s, at most 10m)` },
    note: { type: 'string', value: 'N', description: 'what it is for, for whoever reads hook list' },
  },
  examples: [
    'loopx hook add --on gate.asked --on todo.blocked --command \'notify-send "$LOOPX_TITLE" "$LOOPX_SUMMARY"\'',
    'loopx hook add --on all --command \'jq -c "{text: .summary}" | curl -fsS -X POST -H "Content-Type: application/json" --data-binary @- "$SLACK_WEBHOOK"\'',
  ],
  run(ctx) {
    const a = ctx.args;
    const on = parseTriggers(a.list('on'));
    const goalId = a.id('goal');
    const command = a.str('command') ?? '';
    const id = ctx.kernel().read((db) => {
      if (goalId) getGoal(db, goalId);
      return nextHookId(db);
    });
    const human = ctx.confirmHuman(`add hook ${id}: run a command, unattended, when something happens`, id, [
      `on: ${on.join(', ')}${goalId ? ` (goal ${goalId} only)` : ''}`,
      `command: ${command}`,
    ]);
    const hook = addHook(ctx.kernel().as(human), { command, on, goalId, timeoutSeconds: a.num('timeout'), note: a.str('note') });
    return { data: hook, text: `Added ${hookLine(hook)}\nTry it: loopx hook test ${hook.id}` };
  },
};

export const hookRemove: Command = {
  name: ['hook', 'remove'],
  summary: 'remove a hook (humans only): it runs for no later event',
  humanOnly: true,
  mutates: true,
  positionals: [{ name: 'ID', description: 'hook id, e.g. N1', required: true }],
  run(ctx) {
    const id = parseId('hook', ctx.args.positionals[0]);
    const hook = ctx.kernel().read((db) => getHook(db, id));
    const human = ctx.confirmHuman(`remove hook ${id}`, id, [`command: ${hook.command}`]);
    const removed = removeHook(ctx.kernel().as(human), id);
    return { data: removed, text: `Removed ${hookLine(removed)}` };
  },
};

export const hookList: Command = {
  name: ['hook', 'list'],
  summary: 'the hooks a person set, and their latest runs (who ran each, for which event, how it ended)',
  readOnly: true,
  flags: {
    all: { type: 'boolean', description: 'removed hooks too' },
    runs: { type: 'int', value: 'N', min: 0, max: 500, description: 'the latest N runs (default 10)' },
  },
  run(ctx) {
    const data = ctx.kernel().read((db) => ({
      hooks: listHooks(db, { all: ctx.args.bool('all') }),
      runs: hookRuns(db, { limit: ctx.args.num('runs') ?? 10 }),
    }));
    const text = () =>
      [
        ...(data.hooks.length
          ? data.hooks.map(hookLine)
          : ['No hooks. A person adds one with: loopx hook add --on gate.asked --command CMD']),
        ...(data.runs.length ? ['Latest runs:', ...data.runs.map(runLine)] : []),
      ].join('\n');
    return { data, text };
  },
};

export const hookTest: Command = {
  name: ['hook', 'test'],
  summary: 'run a hook now with a made-up event, to see that the notification arrives (people only; nothing is recorded)',
  positionals: [{ name: 'ID', description: 'hook id, e.g. N1', required: true }],
  async run(ctx) {
    if (ctx.actor.kind === 'agent') throw new NotAllowedError(`testing a hook runs a person's command; agent ${ctx.actor.name} may not`);
    const id = parseId('hook', ctx.args.positionals[0]);
    const kernel = ctx.kernel();
    const hook = kernel.read((db) => getHook(db, id));
    const trigger = hook.on[0] ?? 'gate.asked';
    const occasion: HookOccasion = {
      trigger,
      seq: 0,
      at: iso(Date.now()),
      kind: 'test',
      actor: ctx.actor.name,
      actorKind: ctx.actor.kind,
      goalId: hook.goalId,
      todoId: null,
      data: {},
      subject: hook.id,
      title: `LoopX: a test of hook ${hook.id}`,
      summary: `This is a test of hook ${hook.id} (${trigger}), run by ${ctx.actor.name}.`,
      goal: null,
      todo: null,
    };
    const result = await runHook(kernel.root, hook, occasion, ctx.env);
    const outcome = result.error ?? `exit ${result.exitCode}`;
    return {
      data: {
        hook: hook.id,
        exitCode: result.exitCode,
        durationMs: result.durationMs,
        timedOut: result.timedOut,
        error: result.error,
        output: result.outputTail,
      },
      text: `Hook ${hook.id}: ${outcome} in ${result.durationMs} ms${result.outputTail.trim() ? `\n${result.outputTail.trimEnd()}` : ''}`,
      ...(result.exitCode === 0 ? {} : { failure: { code: 'hook_failed', message: `hook ${hook.id}: ${outcome}`, exitCode: 1 } }),
    };
  },
};

export const hookDispatch: Command = {
  name: ['hook', 'dispatch'],
  summary: 'run the hooks events since the last day call for, once each, then exit (for cron when no runner or editor runs)',
  mutates: true,
  run: async (ctx) => {
    const kernel = ctx.kernel();
    const runs = await dispatchHooks(kernel, { by: `loopx hook dispatch (pid ${process.pid})` });
    return {
      data: { runs },
      text: runs.length
        ? runs.map((r) => `hook ${r.hookId} for ${r.subject} (${r.trigger}): ${r.error ?? `exit ${r.exitCode}`}`).join('\n')
        : 'No hook was due.',
      unchanged: runs.length === 0,
    };
  },
};

export const HOOK_COMMANDS = [hookAdd, hookList, hookRemove, hookTest, hookDispatch];

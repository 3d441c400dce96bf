import type { Command } from '../command';
import { addMonitor, cancelMonitor } from '../../kernel/monitors/monitors';
import { tickMonitors } from '../../kernel/monitors/tick';
import { MONITOR_STATUSES, type MonitorStatus, getMonitor, listMonitors, monitorRuns } from '../../kernel/monitors/monitorQueries';
import { InvalidInputError } from '../../kernel/errors';
import { parseId } from '../../kernel/validate';
import { clean, list, monitorLine, Painter, relativeTime, runOutcome } from '../format';
import { getGoal } from '../../kernel/goals/goalQueries';
import { getTodo } from '../../kernel/todos/todoQueries';
import { planCheckSandbox, sandboxSentence } from '../../kernel/run/checkSandbox';

export const monitorAdd: Command = {
  name: ['monitor', 'add'],
  summary: 'put a todo to wait on a check the kernel runs (or a timer) instead of polling in a turn',
  description: [
    'The agent holding the todo (or a human) asks; the claim is released with a continuation naming the monitor, and',
    'the todo is not ready (todo next, claim --next and should-run skip it) until the monitor fires, expires or is',
    'cancelled. `loopx monitor tick` runs due checks: with the shell, from the workspace root, each run killed with',
    'its whole process group after --run-limit, with LOOPX_ROOT, LOOPX_MONITOR, LOOPX_TODO and LOOPX_GOAL set.',
    'It fires when --until holds: exit0 (the check exits 0; default), change (its output or exit code differs from',
    'its first run), or match:REGEX (a JavaScript regular expression, multiline, matched against the last 64 KB of',
    'output). Then the todo is ready with the result in its continuation. Past --timeout (default 24h) it expires.',
  ].join('\n'),
  mutates: true,
  flags: {
    todo: { type: 'string', value: 'T', required: true, description: 'the todo that waits' },
    check: { type: 'string', value: 'CMD', description: 'a shell command to run from the workspace root' },
    every: { type: 'duration', value: 'D', description: 'between two runs of the check (default 5m, at least 10s)' },
    until: { type: 'string', value: 'COND', description: 'exit0 (default), change or match:REGEX' },
    timeout: {
      type: 'duration',
      value: 'D',
      description: 'the monitor expires this long after it was added (default 24h for a check, none for a timer)',
    },
    'run-limit': { type: 'duration', value: 'D', description: 'one run is killed after this long (default 60s, at most 1h)' },
    after: { type: 'duration', value: 'D', description: 'instead of a check: a pure timer that fires this long from now' },
    note: { type: 'string', value: 'N', description: 'what the next turn should know; it is in the continuation when it fires' },
  },
  examples: [
    'loopx monitor add --todo T3 --check "gh run view 1234 --exit-status" --every 2m --timeout 2h --note "CI run 1234"',
    'loopx monitor add --todo T4 --check "curl -fsS https://staging.example.com/health" --until match:ok --every 5m',
    'loopx monitor add --todo T5 --after 6h --note "the training job should be done by then"',
  ],
  run(ctx) {
    const a = ctx.args;
    // A person at an interactive terminal adds their own check (it runs as given); an agent's, or a script's,
    // waits for a person unless it matches a pattern the goal allows.
    const kernel = ctx.canConfirm ? ctx.kernel().as({ ...ctx.actor, channel: 'tty' }) : ctx.kernel();
    const monitor = addMonitor(kernel, {
      todoId: parseId('todo', a.str('todo')),
      check: a.str('check'),
      everySeconds: a.num('every'),
      until: a.str('until'),
      timeoutSeconds: a.num('timeout'),
      runLimitSeconds: a.num('run-limit'),
      afterSeconds: a.num('after'),
      note: a.str('note'),
    });
    const p = new Painter(ctx.color);
    return {
      data: monitor,
      text:
        monitor.approval === 'pending'
          ? `Added ${monitorLine(p, monitor, Date.now())}\n${monitor.todoId} waits on it. Its check runs once a person allows it (VS Code, or loopx monitor approve ${monitor.id} in a terminal), or matches a pattern allowed for the goal (loopx goal allow-checks).`
          : `Added ${monitorLine(p, monitor, Date.now())}\n${monitor.todoId} waits on it; checks run with: loopx monitor tick (cron, CI, the VS Code extension)`,
    };
  },
};

export const monitorList: Command = {
  name: ['monitor', 'list'],
  summary: 'list monitors: waiting ones first (soonest check first), then the ended ones, newest first',
  flags: {
    goal: { type: 'string', value: 'G', description: 'only this goal' },
    todo: { type: 'string', value: 'T', description: 'only this todo' },
    status: { type: 'string', value: 'S', description: `only this status: ${MONITOR_STATUSES.join(', ')}` },
    limit: { type: 'int', value: 'N', min: 1, max: 10_000, description: 'at most N (default 500)' },
  },
  run(ctx) {
    const a = ctx.args;
    const goalId = a.id('goal');
    const todoId = a.id('todo');
    const status = a.str('status');
    if (status !== undefined && !MONITOR_STATUSES.includes(status as MonitorStatus)) {
      throw new InvalidInputError(`--status must be one of ${MONITOR_STATUSES.join(', ')}`);
    }
    const monitors = ctx.kernel().read((db) => {
      if (goalId) getGoal(db, goalId);
      if (todoId) getTodo(db, todoId);
      return listMonitors(db, { goalId, todoId, status: status as MonitorStatus | undefined, limit: a.num('limit') });
    });
    const p = new Painter(ctx.color);
    const now = Date.now();
    // Where a check ticked from this machine (this environment) runs: a fact of the machine, not of the store.
    const checks = monitors.some((m) => m.kind === 'check');
    const sandbox = checks
      ? planCheckSandbox({ purpose: 'monitor', env: ctx.env, actorKind: ctx.actor.kind, writable: [ctx.kernel().root] }).sandbox
      : null;
    const data = monitors.map((m) => ({ ...m, sandbox: m.kind === 'check' ? sandbox : null }));
    const text = list(monitors, (m) => monitorLine(p, m, now), 'No monitors.');
    const waits = monitors.some((m) => m.kind === 'check' && m.status === 'waiting');
    if (!sandbox || !waits) return { data, text };
    return { data, text: `${text}\n${p.paint(sandbox.kind === 'none' ? 'yellow' : 'dim', sandboxSentence(sandbox))}` };
  },
};

export const monitorShow: Command = {
  name: ['monitor', 'show'],
  summary: 'show a monitor with its runs (exit code, duration, output tail and hash), newest first',
  positionals: [{ name: 'ID', description: 'monitor id, e.g. M2', required: true }],
  flags: { runs: { type: 'int', value: 'N', min: 1, max: 10_000, description: 'at most N runs (default 20)' } },
  run(ctx) {
    const id = parseId('monitor', ctx.args.positionals[0]);
    const limit = ctx.args.num('runs') ?? 20;
    const data = ctx.kernel().read((db) => ({ ...getMonitor(db, id), runs: monitorRuns(db, id, limit) }));
    const p = new Painter(ctx.color);
    const now = Date.now();
    const lines = [
      monitorLine(p, data, now),
      `  added by ${clean(data.addedBy)} ${relativeTime(data.createdAt, now)}; ${data.runCount} run(s)`,
    ];
    if (data.note) lines.push(`  note: ${clean(data.note)}`);
    if (data.result) lines.push(`  result: ${clean(data.result)}`);
    for (const run of data.runs) {
      lines.push(
        `  run ${run.n} ${relativeTime(run.at, now)}: ${runOutcome(run)}  ${p.paint('dim', `sha256:${run.outputSha256.slice(0, 12)}…`)}`,
      );
      const tail = run.outputTail.trimEnd().split('\n').slice(-5);
      if (tail.join('').trim()) lines.push(...tail.map((l) => `    ${p.paint('dim', clean(l))}`));
    }
    return { data, text: lines.join('\n') };
  },
};

export const monitorCancel: Command = {
  name: ['monitor', 'cancel'],
  summary: 'stop a waiting monitor (a human, or the agent that added it); its todo is ready again',
  mutates: true,
  positionals: [{ name: 'ID', description: 'monitor id, e.g. M2', required: true }],
  flags: { reason: { type: 'string', value: 'R', description: "why; it goes into the todo's continuation" } },
  run(ctx) {
    const monitor = cancelMonitor(ctx.kernel(), parseId('monitor', ctx.args.positionals[0]), ctx.args.str('reason'));
    return { data: monitor, text: `Cancelled ${monitorLine(new Painter(ctx.color), monitor, Date.now())}` };
  },
};

export const monitorTick: Command = {
  name: ['monitor', 'tick'],
  summary: 'run every due check once, fire due timers, expire what timed out, and exit (safe to run concurrently)',
  description: [
    'Call it from cron, CI, a runner or a loop: each run is claimed in its own transaction right before it starts, so',
    'tickers running at the same time never run the same check. Monitors of goals that are not active wait with their',
    'goal. data: { runs: [{ monitorId, todoId, n, exitCode, durationMs, timedOut, error, outcome, sandbox }], fired,',
    'expired, refused, nextCheckAt }. Exits 0 whatever the checks answered; a check that fails is a result, not an error.',
    "A check whose person's decision does not stand (loopx log verify names it) is not run: refused: [{ monitorId, message }].",
    'Checks run in a bubblewrap sandbox where there is one (the workspace writable except .loopx/, the network kept); else',
    'as the ticker, said in `sandbox` (LOOPX_CHECK_SANDBOX=off turns it off for a person, never for an agent).',
  ].join('\n'),
  mutates: true,
  flags: { concurrency: { type: 'int', value: 'N', min: 1, max: 32, description: 'checks run at the same time (default 4, 1 to 32)' } },
  examples: ['* * * * * cd /path/to/workspace && loopx monitor tick    # crontab: every minute'],
  async run(ctx) {
    const concurrency = ctx.args.num('concurrency');
    const result = await tickMonitors(ctx.kernel(), { concurrency, env: ctx.env });
    const now = Date.now();
    const lines = result.runs.map((r) => `${r.monitorId} (${r.todoId}) run ${r.n}: ${runOutcome(r)} → ${r.outcome}`);
    const timers = result.fired.filter((id) => !result.runs.some((r) => r.monitorId === id));
    if (timers.length) lines.push(`fired without a run (timers): ${timers.join(', ')}`);
    const expired = result.expired.filter((id) => !result.runs.some((r) => r.monitorId === id));
    if (expired.length) lines.push(`expired: ${expired.join(', ')}`);
    for (const r of result.refused) lines.push(`not run: ${r.message}`);
    if (!lines.length) lines.push('Nothing was due.');
    lines.push(
      result.nextCheckAt ? `Next check ${relativeTime(result.nextCheckAt, now)} (${result.nextCheckAt}).` : 'No monitor is waiting.',
    );
    const changed = result.runs.length > 0 || result.fired.length > 0 || result.expired.length > 0;
    return { data: result, text: lines.join('\n'), unchanged: !changed };
  },
};

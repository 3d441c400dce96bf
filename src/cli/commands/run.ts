import type { Command } from '../command';
import { EXIT, InvalidInputError, LoopxError, NotAllowedError } from '../../kernel/errors';
import {
  DEFAULT_HOSTS,
  INSTALL_HINTS,
  type HostSettings,
  findExecutable,
  hostExecutable,
  LEFT_OUT_HINT,
  programLeftOut,
} from '../../runtime/hosts';
import { hostFacts, judgeHost } from '../../runtime/hostCheck';
import { parseAgentName, parseId } from '../../kernel/validate';
import { requirePosixShell } from '../../runtime/platform';
import { Runner } from '../run/runner';
import { loopxForAgents } from '../agentLoopx';
import { DEFAULT_LEASE_SECONDS, MAX_LEASE_SECONDS, MIN_LEASE_SECONDS } from '../../kernel/todos/claims';
import { getGoal } from '../../kernel/goals/goalQueries';
import { HOST_IDS } from '../../shared/hostCatalog';
import { hostRefusal } from '../../runtime/hostSafety';
import { personHosts, personHostsPath } from '../../runtime/personHosts';
import { iso } from '../../kernel/time';

/** The hosts `--host` takes: every built-in one (shared/hostCatalog.ts), and a custom command. */
const HOSTS = HOST_IDS;
/** A turn's time limit unless --turn-limit says otherwise: unattended commands run with one. */
const DEFAULT_TURN_LIMIT_SECONDS = 2 * 3600;

export const run: Command = {
  name: ['run'],
  summary: 'the auto-run loop as a command: run turns on a host whenever should-run says yes, sleep otherwise',
  description: [
    'For each goal served (--goal, repeatable; default every active goal): ask should-run; when yes, turn start,',
    'run the host as a child process from the workspace root (codex and claude read the prompt on stdin; a custom',
    '--command names it with {prompt}, also {turn} {todo} {goal} {agent}, each shell-quoted), with LOOPX_AGENT,',
    "LOOPX_TURN, LOOPX_GOAL, LOOPX_TODO, LOOPX_ROOT and LOOPX_PROMPT set; its output goes to the turn's output.log",
    'and here, prefixed with the turn id; then turn finish with its exit code. The lease is renewed while it runs.',
    'Between turns: tick due monitors, then sleep until the next wake, the next monitor check or a store change.',
    "The kernel decides: several runners and VS Code windows never exceed a goal's max concurrent turns nor claim",
    'a todo twice. Turns a killed runner left open are finished by the next runner, judged by what was written back.',
    'Ctrl-C or SIGTERM: start no more turns and let the running one end; a second one ends it (exit code 130).',
    'A turn past --turn-limit is ended (exit code 124). --json: one JSON object per line (event: decision,',
    'turn_started, output, turn_ended, monitors, recovered, sleeping, stopping…), then the usual envelope.',
    "Exits 0 when it stops (idle, --once, --max-turns, a signal); 2 when the host's program is missing (nothing claimed);",
    '3 (unsupported_platform) on Windows, which has no /bin/sh to run a host with.',
  ].join('\n'),
  mutates: true,
  flags: {
    goal: { type: 'string', value: 'G', repeat: true, description: 'a goal to serve (repeatable; default: every active goal)' },
    host: {
      type: 'string',
      value: 'H',
      description: `${HOSTS.join(', ')}, or one of your own (hosts.json); default: the agent a person chose for the --goal served (loopx goal set-host)`,
    },
    command: { type: 'string', value: 'TEMPLATE', description: 'the host\'s command (required for custom), e.g. "node agent.js {prompt}"' },
    'max-turns': { type: 'int', value: 'N', min: 1, description: 'start at most N turns, then stop once they end' },
    'until-idle': { type: 'boolean', description: 'stop when no goal served can run without a human, a monitor or time' },
    once: { type: 'boolean', description: 'one pass: at most one turn per goal, then stop once they end' },
    'no-serve': {
      type: 'boolean',
      description: "answer none of the turns' agents' loopx calls here: each runs in a process of its own, as without a runner",
    },
    'turn-limit': { type: 'duration', value: 'D', min: 10, description: 'end a turn that runs longer (default 2h, at least 10s)' },
    'clean-worktrees': {
      type: 'duration',
      value: 'AGE',
      min: 3600,
      description:
        'remove worktree folders of landed, killed, shipped or abandoned todos idle for AGE (e.g. 7d); dirty ones are only reported',
    },
    lease: {
      type: 'duration',
      value: 'D',
      min: MIN_LEASE_SECONDS,
      max: MAX_LEASE_SECONDS,
      description: "each turn's claim, renewed every third of it while the host runs (default 30m)",
    },
  },
  examples: [
    'loopx run --host claude --goal G1',
    'loopx run --host custom --command "node ./agent.js {prompt}" --agent bot-1 --until-idle',
    'loopx run --host codex --json >> runner.jsonl',
  ],
  async run(ctx) {
    requirePosixShell('loopx run');
    const a = ctx.args;
    const goals = [...new Set(a.list('goal').map((g) => parseId('goal', g)))];
    const chosen = ctx.kernel().read((db) => goals.map((g) => getGoal(db, g).host)); // an unknown goal: exit 4, nothing recorded
    const host = a.str('host') ?? goalsHost(goals, chosen);
    // The person's own hosts (their config folder's hosts.json) beside the built-in ones.
    const own = personHosts(ctx.env);
    const hosts = [...HOSTS, ...own.map((h) => h.id)];
    if (!hosts.includes(host))
      throw new InvalidInputError(`--host must be ${hosts.slice(0, -1).join(', ')} or ${hosts.at(-1)}, got ${JSON.stringify(host)}`);
    const command = a.str('command');
    if (command !== undefined && !command.trim())
      throw new InvalidInputError('--command is empty', 'give the command line that runs your agent');
    const settings: HostSettings = {
      ...DEFAULT_HOSTS,
      ...Object.fromEntries(own.map((h) => [h.id, h.command])),
      ...(command ? { [host]: command } : {}),
    };
    let executable: string;
    try {
      executable = hostExecutable(host, settings);
    } catch (error) {
      throw new InvalidInputError((error as Error).message, 'pass --command "your-agent {prompt}"');
    }
    // Before anything is claimed or recorded: the same check as the extension's Run Turn.
    if (!findExecutable(executable, ctx.env.PATH ?? '')) {
      const leftOut = programLeftOut(executable, ctx.env.PATH ?? '');
      throw new LoopxError(
        'host_missing',
        leftOut
          ? `the ${host} host needs "${executable}", which is on PATH only at ${leftOut}: in a workspace folder (or a relative one), where agents can write, so loopx does not run it`
          : `the ${host} host needs "${executable}", which is not on PATH`,
        EXIT.invalidInput,
        leftOut
          ? LEFT_OUT_HINT
          : command
            ? 'check the program in --command'
            : (INSTALL_HINTS[host] ?? `check its command in ${personHostsPath(ctx.env)}`),
      );
    }
    // A host whose installed program would refuse the command (a flag it dropped, or one it does not know yet).
    const template = settings[host as keyof HostSettings] ?? '';
    const verdict = judgeHost(host, template, await hostFacts(host, template, ctx.env.PATH ?? ''));
    if (verdict.problem === 'incompatible' || verdict.problem === 'too_old')
      throw new LoopxError(
        'host_incompatible',
        verdict.sentence,
        EXIT.invalidInput,
        command ? 'check the flags in --command' : undefined,
        verdict,
      );
    const unsafe = hostRefusal(host, template, ctx.kernel().root);
    if (unsafe) throw unsafe;
    if (verdict.problem === 'needs_permissions')
      ctx.out(
        ctx.json
          ? `${JSON.stringify({ event: 'warning', message: verdict.sentence, at: iso(Date.now()) })}\n`
          : `warning: ${verdict.sentence}\n`,
      );
    const maxTurns = a.num('max-turns');
    const limit = a.num('turn-limit') ?? DEFAULT_TURN_LIMIT_SECONDS;
    const lease = a.num('lease') ?? DEFAULT_LEASE_SECONDS;
    const agent = parseAgentName(ctx.actor.kind === 'agent' ? ctx.actor.name : host, 'agent');
    const kernel = ctx.kernel();
    const cleanAge = a.num('clean-worktrees');
    // Removing folders is a person's call, even when it loses nothing (branches and uncommitted work stay).
    if (cleanAge !== undefined && ctx.actor.kind === 'agent')
      throw new NotAllowedError('an agent may not turn on the worktree clean-up', 'a person starts loopx run with --clean-worktrees');
    const runner = new Runner(kernel, {
      goals,
      host,
      settings,
      agent,
      maxTurns,
      untilIdle: a.bool('until-idle'),
      once: a.bool('once'),
      serveCalls: !a.bool('no-serve'),
      turnLimitMs: limit * 1000,
      leaseSeconds: lease,
      // The prompt names this very loopx on this Node, so the agent calls the same store's CLI whatever its PATH.
      loopxCommand: loopxForAgents(kernel.root),
      cleanWorktreesSeconds: cleanAge,
      json: ctx.json,
      color: ctx.color,
      out: ctx.out,
    });
    const onSignal = (name: NodeJS.Signals) => runner.signal(name === 'SIGINT' ? 'Ctrl-C' : name);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      const summary = await runner.run();
      const text =
        `loopx run stopped (${summary.stoppedBecause.replace('_', ' ')}): ${summary.turnsRun} turn${summary.turnsRun === 1 ? '' : 's'} run` +
        (summary.recovered.length ? `, ${summary.recovered.length} left open by a gone runner finished` : '') +
        '.';
      return { data: summary, text };
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};

/** The host of the goals a runner serves when --host is not given: the one a person chose for them all. */
function goalsHost(goals: string[], chosen: (string | null)[]): string {
  const hosts = [...new Set(chosen)];
  if (goals.length && hosts.length === 1 && hosts[0]) return hosts[0];
  const why = !goals.length
    ? 'no --goal names the goals to serve'
    : hosts.length > 1
      ? `the goals served run on different agents (${chosen.map((h, i) => `${goals[i]}: ${h ?? 'chosen at each run'}`).join(', ')})`
      : `no agent was chosen for ${goals.join(', ')}`;
  throw new InvalidInputError(
    `give --host: ${why}`,
    "e.g. loopx run --host claude, or choose a goal's agent: loopx goal set-host G1 claude",
  );
}

import { join } from 'node:path';
import type { Kernel } from '../../kernel/kernel';
import { KERNEL } from '../../kernel/authority';
import { humanKeyDir } from '../../kernel/humanKey';
import { renewIntervalMs } from '../../kernel/todos/claims';
import { turnDir } from '../../kernel/turns/turnRecord';
import { finishTurn } from '../../kernel/turns/turnFinish';
import { getGoal } from '../../kernel/goals/goalQueries';
import { windowSpends } from '../../kernel/goals/quotaQueries';
import { HostStream, hostFormat, renderProgress } from '../../kernel/turns/usage/hostStream';
import { hostBoundary, shellWritesStore, turnBoundary } from '../../runtime/hostBoundary';
import { holdSandboxStubs } from '../../runtime/sandboxStubs';
import { recordLaunchedConfig } from '../../kernel/turns/turnConfig';
import { hostCommand } from '../../runtime/hosts';
import { hostProblemAfterTurn } from '../../runtime/hostCheck';
import { writeLauncher } from '../../runtime/launchers';
import { type HostRun, OUTPUT_FILE, type Running, startHost } from './hostProcess';
import { keepLease } from './leaseKeeper';
import type { Recovery } from './recovery';
import { type RunSummary, type RunnerOptions, SUMMARY_TURNS } from './runnerOptions';
import { endedLine, startedLine } from './runnerWords';
import { TurnPreparation } from './turnPreparation';
import { withPersonsPath } from '../../kernel/personsPath';
import type { VerbServer } from './verbServer';

/** Turn folders are pruned when the runner starts and after every this many turns it finishes. */
const PRUNE_EVERY = 50;

/** What the runner's loop lends a turn: its lines, its wake-up, its housekeeping, its record of recovered turns. */
export interface TurnLoop {
  say(event: Record<string, unknown>, line: string): void;
  wakeUp(): void;
  prune(): void;
  refreshStatus(): void;
  recovered(r: Recovery): void;
}

/**
 * A `loopx run` turn from its start to its finish: the kernel's turn start, the host's process and its output, the
 * lease kept while it runs, the finish from the host's report and the line that says how it ended. What changes with
 * how one turn runs lives here; when turns start and how the runner sleeps is the loop's (runner.ts).
 */
export class RunnerTurns {
  /** The turns this runner runs now (its own and adopted ones), by turn id. */
  readonly running = new Map<string, Running>();
  /** How many turns this runner started (for --max-turns). */
  started = 0;
  private finished = 0;
  private readonly preparation: TurnPreparation;
  /** Where this runner answers its turns' agents' calls, when it does (verbServer.ts). */
  server: VerbServer | null = null;

  constructor(
    private readonly agentKernel: Kernel,
    private readonly o: RunnerOptions,
    private readonly summary: RunSummary,
    private readonly loop: TurnLoop,
  ) {
    this.preparation = new TurnPreparation(agentKernel, (event, line) => loop.say(event, line));
  }

  /** turn start for one goal; false when the kernel refused (another runner or window got there first). */
  async start(goalId: string, role?: 'review'): Promise<boolean> {
    const begun = await this.preparation.start({
      goalId,
      ...(role ? { role } : {}),
      host: this.o.host,
      agent: this.o.agent,
      loopxCommand: this.o.loopxCommand,
      leaseSeconds: this.o.leaseSeconds,
      limitSeconds: Math.ceil(this.o.turnLimitMs / 1000),
      launchedBy: 'runner',
      boundary: hostBoundary(this.o.host, this.o.settings),
    });
    if (!begun) return false;
    const { turn, env, promptFile, allowedCommands, cwd } = begun;
    this.started++;
    const root = this.agentKernel.root;
    const dir = join(root, turnDir(turn.id));
    writeLauncher(root, turn.id, { pid: process.pid, runner: this.o.agent, host: this.o.host });
    this.loop.say(
      { event: 'turn_started', turnId: turn.id, goalId, todoId: turn.todoId, host: this.o.host, agent: turn.agent, role: turn.role },
      startedLine(turn, this.o.host),
    );
    const releaseStubs = holdSandboxStubs(cwd, this.o.host);
    // The turn's own key to this runner's answers, valid while its host runs.
    const served =
      this.server?.grant({ agent: turn.agent, turnId: turn.id, shellWrites: shellWritesStore(this.o.host, this.o.settings) }) ?? {};
    const commandLine = hostCommand(this.o.host, this.o.settings, {
      promptFile,
      dir,
      env,
      allowedCommands,
      boundary: turnBoundary({ cwd, env }, this.o.loopxCommand, humanKeyDir()),
    });
    // The config in force, as evidence, before the host starts (turnConfig.ts).
    recordLaunchedConfig(this.agentKernel, turn.id, commandLine, dir, (line) =>
      this.loop.say({ event: 'config_not_recorded', turnId: turn.id, error: line }, line),
    );
    const host = startHost({
      commandLine,
      cwd,
      // PATH as the person's programs are found (personsPath): the host's program is often a Node script whose
      // `#!/usr/bin/env node` would otherwise find a `node` an agent planted in a workspace folder first on PATH.
      env: withPersonsPath({ ...process.env, ...env, ...served }),
      turnDir: dir,
      limitMs: this.o.turnLimitMs,
      echo: this.echo(turn.id, this.o.host),
    });
    // The host waits until its pid is in the marker: a runner killed before this line leaves no agent running unseen.
    try {
      if (host.pid) writeLauncher(root, turn.id, { pid: process.pid, runner: this.o.agent, host: this.o.host, hostPid: host.pid });
      host.release(true);
    } catch (error) {
      host.release(false);
      this.loop.say(
        { event: 'host_error', turnId: turn.id, error: (error as Error).message },
        `${turn.id}: the agent was not started: its launcher marker could not be written (${(error as Error).message})`,
      );
    }
    void host.done.then(() => {
      this.server?.revoke(served);
      releaseStubs();
    });
    this.track({ turn, host });
    return true;
  }

  /** Keeps a running turn's lease and finishes it when its host ends: our own host, or an adopted one. */
  track(run: Running): void {
    const { turn, host } = run;
    this.running.set(turn.id, run);
    this.loop.refreshStatus();
    const keep = () => keepLease(this.agentKernel, run, this.o.leaseSeconds, (event, line) => this.loop.say(event, line));
    const renewal = setInterval(keep, renewIntervalMs(this.o.leaseSeconds));
    if (run.adopted) keep(); // its lease was not renewed since its runner died
    void host.done.then((ended) => {
      clearInterval(renewal);
      if (ended.error)
        this.loop.say({ event: 'host_error', turnId: turn.id, error: ended.error }, `${turn.id}: the host could not run: ${ended.error}`);
      this.finish(run, ended);
      this.running.delete(turn.id);
      this.loop.wakeUp();
    });
  }

  private finish(run: Running, how: HostRun): void {
    const k = this.agentKernel;
    let turn: ReturnType<typeof finishTurn>;
    try {
      // An adopted turn is finished by the kernel, as any turn a gone runner left; our own, by us as its launcher.
      turn = finishTurn(run.adopted ? k.as(KERNEL) : k, run.turn.id, how.exitCode, undefined, { byLauncher: !run.adopted });
    } catch (error) {
      this.loop.say(
        { event: 'finish_failed', turnId: run.turn.id, error: (error as Error).message },
        `${run.turn.id} could not be finished: ${(error as Error).message}`,
      );
      return;
    }
    if (++this.finished % PRUNE_EVERY === 0) this.loop.prune();
    if (run.adopted) {
      const why = `its agent ended with exit code ${how.exitCode}${how.timedOut ? ' at the time limit' : ''} after ${run.adopted} was gone`;
      this.loop.recovered({ turn, exitCode: how.exitCode, why, adopted: true });
      return;
    }
    const quota = k.read((db, now) => {
      const goal = getGoal(db, turn.goalId);
      return { used: windowSpends(db, goal, now).spent, limit: goal.policy.turnsPerWindow };
    });
    this.summary.turnsRun++;
    // A host that ended at once with its usage message never ran the agent: say so, not "no progress".
    const hostProblem =
      turn.resultKind === 'host_failure' || turn.resultKind === 'validation_failed'
        ? hostProblemAfterTurn(
            this.o.host,
            join(k.root, turnDir(turn.id), OUTPUT_FILE),
            how.exitCode,
            Date.now() - Date.parse(turn.startedAt),
          )
        : null;
    this.summary.turns.push({
      id: turn.id,
      goalId: turn.goalId,
      todoId: turn.todoId,
      resultKind: turn.resultKind,
      exitCode: turn.exitCode,
      spent: turn.spent,
    });
    if (this.summary.turns.length > SUMMARY_TURNS) this.summary.turns.shift();
    this.loop.say(
      {
        event: 'turn_ended',
        turnId: turn.id,
        goalId: turn.goalId,
        todoId: turn.todoId,
        resultKind: turn.resultKind,
        exitCode: how.exitCode,
        spent: turn.spent,
        quota,
        usage: turn.usage,
        usageWarnings: turn.usageWarnings,
        timedOut: how.timedOut,
        interrupted: how.interrupted,
        ...(hostProblem ? { hostProblem } : {}),
      },
      `${endedLine(turn, quota, how)}${hostProblem ? `\n${turn.id}: ${hostProblem}` : ''}`,
    );
    this.loop.refreshStatus();
  }

  /**
   * How a turn's output is shown: a host with structured output (Claude Code, Codex) as readable progress lines, its
   * raw line kept in the turn's output.log (and in --json's `line`); any other host's lines as they are.
   */
  echo(turnId: string, host: string): (line: string) => void {
    const format = hostFormat(host);
    if (!format) return (line) => this.loop.say({ event: 'output', turnId, line }, `${turnId} │ ${line}`);
    const stream = new HostStream(format);
    return (line) => {
      const progress = stream.push(`${line}\n`);
      if (this.o.json) return this.loop.say({ event: 'output', turnId, line, progress }, '');
      for (const p of progress) this.loop.say({}, `${turnId} │ ${renderProgress(p, this.o.color === true)}`);
    };
  }
}

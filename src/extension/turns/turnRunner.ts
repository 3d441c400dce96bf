import { isValidatedResult } from '../../kernel/turns/turnQueries';
import { turnOutcomeWords } from '../../shared/turnOutcomeWords';
import * as vscode from 'vscode';
import { watch, type FSWatcher } from 'node:fs';
import { dirname, join } from 'node:path';
import { EXIT, LoopxError } from '../../kernel/errors';
import { EXIT_CODE_FILE, readExitCode, writeLauncher } from '../../runtime/launchers';
import { renewTodo, RENEW_INTERVAL_MS } from '../../kernel/todos/claims';
import { startTurn, type TurnStart } from '../../kernel/turns/turns';
import { turnDir } from '../../kernel/turns/turnRecord';
import { finishTurn } from '../../kernel/turns/turnFinish';
import { SAMPLE_HOST } from '../../kernel/turns/turnLaunchers';
import { recordLaunchedConfig } from '../../kernel/turns/turnConfig';
import type { Turn } from '../../kernel/turns/turnQueries';
import { pruneTurnFolders } from '../../runtime/turnFolders';
import { getTurn } from '../../kernel/turns/turnQueries';
import { shouldRunReason } from '../../protocol/shouldRunWords';
import { type ShouldRunReason, shouldRun } from '../../kernel/goals/quotaQueries';
import { getGoal } from '../../kernel/goals/goalQueries';
import { clockTime } from '../../protocol/display';
import { Disposable, toDisposable } from '../util/lifecycle';
import type { StoreSession, StoreModel } from '../store/storeModel';
import type { Log } from '../util/log';
import { hostBoundary, shellWritesStore, turnBoundary } from '../../runtime/hostBoundary';
import { TurnCalls } from './turnCalls';
import { holdSandboxStubs } from '../../runtime/sandboxStubs';
import { humanKeyDir } from '../../kernel/humanKey';
import { DEFAULT_HOSTS, type HostSettings, planHost, shellQuote } from '../../runtime/hosts';
import { hostProblemAfterTurn } from '../../runtime/hostCheck';
import { requirePosixShell } from '../../runtime/platform';
import { sampleAgentCommand } from '../bundledCli';
import { probeHost } from './hostProbe';
import { hostRefusal } from '../../runtime/hostSafety';
import { type PersonHost, personHosts } from '../../runtime/personHosts';
import { BUILT_IN_HOSTS, HOST_IDS } from '../../shared/hostCatalog';
import { prepareWithProgress, tellSetupNotRun, tellSetupRefusal } from './worktreePreparation';
import { loopxSetting, terminalEnv } from '../loopxSettings';

/** The hosts Run Turn offers: every built-in one (shared/hostCatalog.ts), and a custom command. */
export const HOSTS = HOST_IDS;

/** What turns need of their folder: its store, its model (for budgets), the log, and the `loopx` agents run. */
export interface TurnRunnerDeps {
  session: StoreSession;
  model: StoreModel;
  log: Log;
  cliCommand: string;
}

interface Running {
  turn: Turn;
  terminal: vscode.Terminal;
  stop(): void;
  /** The turn's key to this window's answers to its agent's calls (TurnCalls), when it has one. */
  served?: Record<string, string>;
}

/** What a turn run ended as, for the caller (commands, the board, tests). */
export type RunOutcome =
  | { started: true; turn: Turn; terminal: vscode.Terminal; finished: Promise<Turn> }
  | { started: false; reason: string; nextWakeAt: string | null; told?: boolean; code?: ShouldRunReason };

/** A turn that did not start. */
export type NoRun = Extract<RunOutcome, { started: false }>;

/**
 * Runs turns in integrated terminals: turn start (should-run, claim, prompt) → a terminal named after the todo and
 * host, with the environment naming agent, turn, goal and store → the host's command, reading the prompt file →
 * lease renewed while it runs → turn finish when the command ends (its exit code, written to a file we watch) or the
 * terminal closes. Nothing polls.
 */
export class TurnRunner extends Disposable {
  private readonly running = new Map<string, Running>();
  private readonly changed = this.register(new vscode.EventEmitter<Turn>());
  /** Fires when a turn this window ran has finished. */
  readonly onDidFinish = this.changed.event;

  /** Answers the turns' agents' loopx calls in this window's helper (turnCalls.ts). */
  readonly calls: TurnCalls;

  constructor(private readonly ctx: TurnRunnerDeps) {
    super();
    this.calls = this.register(new TurnCalls({ root: ctx.session.root, cliCommand: ctx.cliCommand, log: ctx.log }));
    this.register(
      vscode.window.onDidCloseTerminal((terminal) => {
        for (const run of this.running.values()) {
          if (run.terminal === terminal) void this.complete(run, terminal.exitStatus?.code ?? -1);
        }
      }),
    );
    this.register(toDisposable(() => [...this.running.values()].forEach((r) => r.stop())));
  }

  get active(): Turn[] {
    return [...this.running.values()].map((r) => r.turn);
  }

  /** The person's own hosts (hosts.json in their loopx config folder); none, said in the log, when it cannot be read. */
  ownHosts(): PersonHost[] {
    try {
      return personHosts();
    } catch (error) {
      this.ctx.log.warn(`hosts.json: ${(error as Error).message}`);
      return [];
    }
  }

  hostSettings(): HostSettings {
    return {
      ...Object.fromEntries(this.ownHosts().map((h) => [h.id, h.command])),
      ...(Object.fromEntries(BUILT_IN_HOSTS.map((h) => [h.id, loopxSetting<string>(`loopx.hosts.${h.id}.command`) || h.command])) as Omit<
        HostSettings,
        'custom'
      >),
      custom: loopxSetting<string>('loopx.hosts.custom.command') || DEFAULT_HOSTS.custom,
      [SAMPLE_HOST]: `${shellQuote(sampleAgentCommand(this.ctx.cliCommand))} {prompt}`,
    };
  }

  agentFor(host: string): string {
    return loopxSetting<string>(`loopx.hosts.${host}.agent`) || host;
  }

  /**
   * Starts a turn, or says why not (should-run's answer; a host that is missing, too old or would refuse its
   * command, in a sentence with the fix) without claiming anything. `command` replaces the host's command for
   * this turn (a command the person typed in Run Turn).
   */
  async run(goalId: string, host: string, todoId?: string, command?: string, unattended = false, role?: 'review'): Promise<RunOutcome> {
    requirePosixShell('Run Turn');
    const settings = { ...this.hostSettings(), ...(command ? { [host]: command } : {}) };
    const template = (settings as unknown as Record<string, string>)[host] ?? '';
    planHost(host, settings, { promptFile: 'prompt.md', dir: '.', env: {} }); // an unconfigured host says how to configure it
    const verdict = await probeHost(host, template);
    if (verdict.level === 'fail')
      throw new LoopxError(
        verdict.problem === 'missing' ? 'host_missing' : 'host_incompatible',
        verdict.sentence,
        EXIT.invalidInput,
        undefined,
        {
          goalId,
          todoId,
          host,
          verdict,
        },
      );
    const unsafe = hostRefusal(host, template, this.ctx.session.root);
    if (unsafe) throw unsafe;
    if (verdict.level === 'warn') {
      this.ctx.log.warn(`turn on ${host}: ${verdict.sentence}`);
      void vscode.window.showWarningMessage(`LoopX: ${verdict.sentence}`, 'Open Settings').then((choice) => {
        if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', `loopx.hosts.${host}.command`);
      });
    }
    const kernel = this.ctx.session.requireKernel();
    let started: TurnStart;
    const input = {
      goalId,
      host,
      todoId,
      agent: this.agentFor(host),
      loopxCommand: this.loopxCommand(),
      launchedBy: 'vscode' as const,
      boundary: hostBoundary(host, settings),
      ...(role ? { role } : {}),
    };
    try {
      // The worktree and its setup run as child processes first (the extension host keeps running), then the write.
      started = startTurn(kernel, input, await prepareWithProgress(kernel, input, unattended));
      tellSetupNotRun(kernel, started);
    } catch (error) {
      if (tellSetupRefusal(error, unattended)) {
        const data = (error.data ?? {}) as { retryAt?: string };
        const reason = error.code === 'setup_cancelled' ? `${goalId}: the setup was cancelled` : `${goalId}: ${error.message}`;
        return { started: false, reason, nextWakeAt: data.retryAt ?? null, told: true };
      }
      if (error instanceof LoopxError && (error.code === 'should_not_run' || error.code === 'no_ready_work')) {
        const data = (error.data ?? {}) as { nextWakeAt?: string | null; reason?: ShouldRunReason };
        return this.noRun(goalId, data.reason ?? 'no_ready_work', data.nextWakeAt ?? null);
      }
      throw error;
    }
    return this.launch(started, host, settings);
  }

  /**
   * should-run for a person's Run Turn on a goal, asked before anything else is (which agent, a worktree): a goal that
   * cannot run says so first. Undefined when it can.
   */
  precheck(goalId: string): NoRun | undefined {
    const answer = this.ctx.session.requireKernel().read((db, nowMs) => shouldRun(db, getGoal(db, goalId), nowMs));
    return answer.run ? undefined : this.noRun(goalId, answer.reason, answer.nextWakeAt);
  }

  private noRun(goalId: string, code: ShouldRunReason, nextWakeAt: string | null): NoRun {
    const goal = this.ctx.model.status()?.goals.find((g) => g.id === goalId);
    const why = shouldRunReason({
      run: false,
      reason: code,
      goalStatus: goal?.status,
      ...goal?.quota,
      counts: goal?.counts,
      me: this.ctx.session.actor.name,
    });
    return { started: false, reason: `${goalId} waits: ${why}`, nextWakeAt, code };
  }

  private launch(started: TurnStart, host: string, settings: HostSettings): RunOutcome {
    const { turn } = started;
    const dir = dirname(started.promptFile);
    const plan = planHost(host, settings, {
      promptFile: started.promptFile,
      dir,
      env: started.env,
      allowedCommands: started.allowedCommands,
      progressLoopx: this.loopxCommand(),
      boundary: turnBoundary(started, this.loopxCommand(), humanKeyDir()),
    });
    // The config in force, as evidence, before the host starts (and before the launcher's marker, which is not config).
    recordLaunchedConfig(this.ctx.session.requireKernel(), turn.id, plan.hostLine, dir, (line) => this.ctx.log.warn(line));
    // Who runs it: a later window (after a reload or a crash) finds turns whose launcher is gone (turnRecovery.ts).
    writeLauncher(this.ctx.session.root, turn.id, { pid: process.pid });
    const releaseStubs = holdSandboxStubs(started.cwd, host);
    const served = this.calls.grant(turn.agent, turn.id, shellWritesStore(host, settings));
    const terminal = vscode.window.createTerminal({
      name: terminalName(turn, host),
      cwd: started.cwd, // the todo's worktree when its goal has them on; the root otherwise
      ...terminalEnv({ ...started.env, ...served }),
      shellPath: '/bin/sh',
      shellArgs: ['-c', plan.commandLine],
      iconPath: new vscode.ThemeIcon('run'),
    });
    terminal.show(true);
    this.ctx.log.info(`turn ${turn.id}: ${turn.agent} on ${host} works ${turn.todoId} (${plan.commandLine})`);
    const finished = this.watch(turn, terminal, served);
    void finished.then(releaseStubs);
    return { started: true, turn, terminal, finished };
  }

  /**
   * Follows a turn's terminal until its command ends (the exit code file) or it closes, renewing the lease meanwhile.
   * Also used for a turn a previous window started whose terminal VS Code restored.
   */
  watch(turn: Turn, terminal: vscode.Terminal, served?: Record<string, string>): Promise<Turn> {
    let finish: (t: Turn) => void = () => {};
    const finished = new Promise<Turn>((done) => (finish = done));
    const dir = join(this.ctx.session.root, turnDir(turn.id));
    const exitFile = join(dir, EXIT_CODE_FILE);
    const onExitFile = () => {
      const code = readExitCode(exitFile);
      if (code !== undefined) void this.complete(run, code);
    };
    let watcher: FSWatcher | undefined = watch(dir, { persistent: false }, (_event, file) => {
      if (String(file) === EXIT_CODE_FILE) onExitFile();
    });
    // Renew the agent's lease while the turn runs (the same beat as `loopx run`).
    const renewal = setInterval(() => this.renew(turn), RENEW_INTERVAL_MS);
    const run: Running & { finish: (t: Turn) => void } = {
      turn,
      terminal,
      finish,
      served,
      stop: () => {
        clearInterval(renewal);
        watcher?.close();
        watcher = undefined;
      },
    };
    this.running.set(turn.id, run);
    onExitFile(); // it may have ended before we looked
    return finished;
  }

  /** Finishes a turn nobody is watching any more (its window and terminal are gone), with what is known of its end. */
  settle(turnId: string, exitCode: number): Turn {
    const turn = finishTurn(this.ctx.session.requireKernel(), turnId, exitCode, undefined, { byLauncher: true });
    this.ctx.log.info(
      `turn ${turn.id} settled after its window was gone: ${turn.resultKind} (exit ${exitCode}, ${turn.spent ? 'spent' : 'not spent'})`,
    );
    this.changed.fire(turn);
    return turn;
  }

  /** A turn this window did not run was finished (ended past its deadline): the views hear of it like any other. */
  settled(turn: Turn): void {
    this.changed.fire(turn);
  }

  isWatching(turnId: string): boolean {
    return this.running.has(turnId);
  }

  private renew(turn: Turn): void {
    const kernel = this.ctx.session.kernel;
    if (!kernel || !turn.todoId) return;
    try {
      renewTodo(kernel.as({ name: turn.agent, kind: 'agent' }), turn.todoId);
    } catch (error) {
      this.ctx.log.info(`turn ${turn.id}: lease not renewed (${(error as Error).message})`);
    }
  }

  private async complete(run: Running & { finish?: (t: Turn) => void }, exitCode: number): Promise<void> {
    if (!this.running.delete(run.turn.id)) return; // the exit file and the terminal close both report: once is enough
    run.stop();
    if (run.served)
      void this.calls.revoke(run.served).then((answered) => {
        if (answered) this.ctx.log.info(`turn ${run.turn.id}: this window answered ${answered} of its agent's loopx calls`);
      });
    const kernel = this.ctx.session.requireKernel();
    let turn: Turn;
    try {
      turn = finishTurn(kernel, run.turn.id, exitCode, undefined, { byLauncher: true });
    } catch (error) {
      this.ctx.log.error(`turn ${run.turn.id} could not be finished`, error);
      turn = kernel.read((db) => getTurn(db, run.turn.id));
    }
    this.ctx.log.info(`turn ${turn.id} finished: ${turn.resultKind} (exit ${exitCode}, ${turn.spent ? 'spent' : 'not spent'})`);
    try {
      pruneTurnFolders(kernel); // the same retention as loopx run: the newest finished turns keep their folders
    } catch (error) {
      this.ctx.log.info(`turn folders not pruned: ${(error as Error).message}`);
    }
    run.finish?.(turn);
    this.changed.fire(turn);
    // A host that ended at once with its usage message never ran the agent: a configuration problem, said as such.
    const hostProblem =
      turn.resultKind === 'host_failure' || turn.resultKind === 'validation_failed'
        ? hostProblemAfterTurn(
            turn.host,
            join(this.ctx.session.root, turnDir(turn.id), 'output.log'),
            exitCode,
            Date.now() - Date.parse(turn.startedAt),
          )
        : null;
    if (hostProblem) {
      const text = `LoopX: turn ${turn.id} did not run the agent: ${hostProblem}. Nothing was spent.`;
      void vscode.window.showWarningMessage(text, 'Open Settings', 'Show Output').then((choice) => {
        if (choice === 'Show Output') run.terminal.show();
        if (choice === 'Open Settings')
          void vscode.commands.executeCommand('workbench.action.openSettings', `loopx.hosts.${turn.host}.command`);
      });
      return;
    }
    const text =
      turn.host === SAMPLE_HOST
        ? `LoopX: the sample agent's turn ${turn.id} on ${turn.todoId} ended: ${turnOutcomeWords(turn.resultKind)}; a demo spends no budget.`
        : `LoopX: turn ${turn.id} (${turn.agent} on ${turn.host}, ${turn.todoId}) ended: ${turnOutcomeWords(turn.resultKind)}; quota ${turn.spent ? 'spent' : 'not spent'}.`;
    const good = isValidatedResult(turn.resultKind);
    void (good ? vscode.window.showInformationMessage(text) : vscode.window.showWarningMessage(text, 'Show Output')).then((choice) => {
      if (choice === 'Show Output') run.terminal.show();
    });
  }

  /** The loopx the prompt tells the agent to call: this extension's own CLI, on the editor's runtime. */
  private loopxCommand(): string {
    return this.ctx.cliCommand;
  }
}

export function terminalName(turn: Pick<Turn, 'id' | 'todoId'>, host: string): string {
  return `${terminalPrefix(turn.id)}${turn.todoId} · ${host}`;
}

/** How a turn's terminal name starts: recovery finds a restored terminal by it. */
export function terminalPrefix(turnId: string): string {
  return `LoopX ${turnId} `;
}

export function describeNoRun(outcome: Extract<RunOutcome, { started: false }>): string {
  return `LoopX: no turn started. ${outcome.reason}${outcome.nextWakeAt ? `; it can run again at ${clockTime(outcome.nextWakeAt, Date.now())}` : '; a person has to act first'}.`;
}

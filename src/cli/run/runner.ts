import { VerbServer } from './verbServer';
import { WorktreeCleaner } from '../../runtime/worktreeCleaning';
import { strayLine } from '../worktreeWords';
import type { Kernel } from '../../kernel/kernel';
import type { Actor } from '../../kernel/events/eventTypes';
import { hostBoundary, unboundedLine } from '../../runtime/hostBoundary';
import { tickMonitors } from '../../kernel/monitors/tick';
import { othersRunChecksHere } from '../../kernel/monitors/claimHolders';
import { iso } from '../../kernel/time';
import { StatusMdWhenIdle } from '../../runtime/projections/statusMdWhenIdle';
import { type ShouldRun, runsSoon, shouldRun } from '../../kernel/goals/quotaQueries';
import { reviewerFits } from '../../kernel/todos/review';
import { hasChangesInReview } from '../../kernel/todos/reviewQueries';
import { shouldRunFacts } from '../shouldRunFacts';
import { DecisionGuard } from './decisionGuard';
import type { ShouldRunFacts } from '../../protocol/shouldRunWords';
import { pruneTurnFolders } from '../../runtime/turnFolders';
import { StoreWatcher } from '../../runtime/watch';
import { HookDispatcher } from '../../kernel/hooks/dispatch';
import { type Recovery, recoverTurns } from './recovery';
import { decisionLine, recoveredLine, sleepLine } from './runnerWords';
import { listGoals, getGoal } from '../../kernel/goals/goalQueries';
import { setupWaits } from '../../kernel/worktrees/setupBackoff';
import { recordRunnerStarted, recordRunnerStopped } from '../../kernel/turns/runners';
import { type RunSummary, type RunnerOptions, SUMMARY_TURNS } from './runnerOptions';
import { RunnerTurns } from './runnerTurns';

/** Wakes at least this often to look for turns a killed runner left behind (its death changes no file we watch). */
const MAX_SLEEP_MS = 60_000;
/** While another runner's turn is open, looks this often whether that runner died (its agent is then adopted). */
const FOREIGN_SLEEP_MS = 5000;
/**
 * A wake time already past that the pass could not act on (a monitor another ticker is running, past its expiry)
 * is retried this much later, never at once: no busy loop whatever the store says.
 */
const MIN_SLEEP_MS = 500;

/** How long the runner waits for quiet before it rewrites STATUS.md, and how long a change waits for it at most. */
const STATUS_IDLE_MS = 2000;
const STATUS_MAX_WAIT_MS = 10_000;

/**
 * `loopx run`: the extension's auto-run as a loop. Each pass: finish or adopt turns other runners left behind, tick
 * due monitors, ask should-run for each goal and start a turn where it says yes (the kernel decides; a refusal is a
 * no), then sleep until a turn ends, the store changes, the next wake or monitor check, or a signal.
 */
export class Runner {
  private readonly summary: RunSummary;
  private readonly lastDecision = new Map<string, string>();
  /** Each turn's start and finish (runnerTurns.ts). */
  private readonly turns: RunnerTurns;
  private readonly cleaner = new WorktreeCleaner();
  private lastSleep = '';
  private stopping = false;
  /** With --once, no turn starts after the first pass. */
  private closed = false;
  private wakeUp: () => void = () => {};
  private readonly agentKernel: Kernel;
  /** Hooks for events a person must hear about, run by whichever runner or window sees them first. */
  private readonly hooks: HookDispatcher;
  /** People's decisions that do not stand: no turn starts on them (decisionGuard.ts). */
  private readonly decisions: DecisionGuard;
  /**
   * STATUS.md, a full status report per rewrite, was rewritten at every turn's start and end: the runner's costliest
   * step after starting the host, and one that grows with the day's turns. Now at most one rewrite per
   * STATUS_IDLE_MS of quiet, and never more than STATUS_MAX_WAIT_MS after a change (marked out of date meanwhile).
   */
  private readonly statusMd = new StatusMdWhenIdle(
    () => this.agentKernel,
    () => undefined, // a projection: never stops the runner
    STATUS_IDLE_MS,
    STATUS_MAX_WAIT_MS,
  );

  constructor(
    /** Whoever started `loopx run` (an agent under --agent): checks are ticked as them, so only a person's opt-out counts. */
    private readonly kernel: Kernel,
    private readonly o: RunnerOptions,
  ) {
    const actor: Actor = { name: o.agent, kind: 'agent' };
    this.agentKernel = kernel.as(actor);
    this.summary = { agent: o.agent, host: o.host, turns: [], turnsRun: 0, recovered: [], stoppedBecause: 'idle', callsAnswered: 0 };
    this.turns = new RunnerTurns(this.agentKernel, o, this.summary, {
      say: (event, line) => this.say(event, line),
      wakeUp: () => this.wakeUp(),
      prune: () => this.prune(),
      refreshStatus: () => this.refreshStatus(),
      recovered: (r) => this.recovered(r),
    });
    this.decisions = new DecisionGuard(this.agentKernel, (event, line) => this.say(event, line));
    this.hooks = new HookDispatcher(this.agentKernel, {
      by: `loopx run ${o.agent} (pid ${process.pid})`,
      onRun: (r) =>
        this.say(
          { event: 'hook', ...r },
          `hook ${r.hookId} for ${r.subject} (${r.trigger}): ${r.error ?? (r.exitCode === 0 ? 'ran' : `exit ${r.exitCode}`)}`,
        ),
      onError: (error) => this.say({ event: 'hook_error', error: (error as Error).message }, `hooks: ${(error as Error).message}`),
    });
  }

  /** First signal: start nothing more and let running turns end. Second: end them now. */
  signal(name: string): void {
    if (!this.stopping) {
      this.stopping = true;
      this.summary.stoppedBecause = 'signal';
      const open = [...this.turns.running.keys()];
      this.say(
        { event: 'stopping', signal: name, waitingFor: open },
        open.length
          ? `${name}: starting no more turns; waiting for ${open.join(', ')} to end (again to end ${open.length === 1 ? 'it' : 'them'} now)`
          : `${name}: stopping`,
      );
    } else {
      for (const { turn, host } of this.turns.running.values()) {
        this.say({ event: 'interrupting', turnId: turn.id }, `${name} again: ending ${turn.id} now`);
        host.interrupt();
      }
    }
    this.wakeUp();
  }

  async run(): Promise<RunSummary> {
    const k = this.agentKernel;
    recordRunnerStarted(k, { pid: process.pid, host: this.o.host, goals: this.o.goals });
    const boundary = hostBoundary(this.o.host, this.o.settings);
    this.say(
      { event: 'runner_started', agent: this.o.agent, host: this.o.host, goals: this.o.goals, pid: process.pid, boundary },
      `loopx run: ${this.o.agent} on ${this.o.host} serves ${this.o.goals.length ? this.o.goals.join(', ') : 'every active goal'} (Ctrl-C stops after the running turn)` +
        (boundary === 'none' ? `\n${unboundedLine(this.o.host)}` : ''),
    );
    this.prune();
    const watcher = new StoreWatcher(k.engine.changeSignal(), () => this.wakeUp()).start();
    const server = this.o.serveCalls ? await VerbServer.start(k.root) : null;
    this.turns.server = server;
    try {
      for (;;) {
        const wake = this.sleeper();
        // Once told to stop, no more passes (a monitor check could take a while): only wait for running turns.
        const next = this.stopping ? { idle: true, wakeAt: null, because: '', foreign: false } : await this.pass();
        if (this.finishedWhen(next.idle)) break;
        this.announceSleep(next.wakeAt, next.because);
        const delay = next.wakeAt ? Math.max(MIN_SLEEP_MS, Date.parse(next.wakeAt) - Date.now()) : MAX_SLEEP_MS;
        await wake(Math.min(delay, next.foreign ? FOREIGN_SLEEP_MS : MAX_SLEEP_MS));
        watcher.check(); // a watch event may have been coalesced; the check is one cheap pragma
      }
      await Promise.all([...this.turns.running.values()].map((r) => r.host.done));
      await this.stopped();
      return this.summary;
    } finally {
      watcher.stop();
      this.statusMd.flush();
      this.summary.callsAnswered = server?.served ?? 0;
      server?.close();
    }
  }

  /** Records that this runner stopped (a hook may tell a person nothing runs now) and waits for hooks still running. */
  private async stopped(): Promise<void> {
    const { stoppedBecause: reason, turnsRun: turns } = this.summary;
    recordRunnerStopped(this.agentKernel, { pid: process.pid, host: this.o.host, reason, turns });
    this.hooks.poke();
    await this.hooks.settle();
  }

  private finishedWhen(idle: boolean): boolean {
    if (this.stopping || this.o.once || this.reachedMax()) {
      if (this.turns.running.size > 0) return false;
      if (!this.stopping) this.summary.stoppedBecause = this.o.once ? 'once' : 'max_turns';
      return true;
    }
    return this.o.untilIdle && idle && this.turns.running.size === 0;
  }

  private reachedMax(): boolean {
    return this.o.maxTurns !== undefined && this.turns.started >= this.o.maxTurns;
  }

  /** A promise-returning sleep that a turn's end, a store change or a signal cuts short. Armed before the pass. */
  private sleeper(): (ms: number) => Promise<void> {
    let woken = false;
    let resolve: () => void = () => {};
    this.wakeUp = () => {
      woken = true;
      resolve();
    };
    return (ms) =>
      new Promise<void>((done) => {
        if (woken) return done();
        const timer = setTimeout(done, ms);
        resolve = () => {
          clearTimeout(timer);
          done();
        };
      });
  }

  /** The automatic worktree clean-up a person turned on: at the first pass, then at most hourly; never with force. */
  private async cleanWorktrees(): Promise<void> {
    const seconds = this.o.cleanWorktreesSeconds;
    if (seconds === undefined) return;
    try {
      const cleaned = await this.cleaner.maybeClean(this.agentKernel, seconds);
      if (!cleaned || (cleaned.removed.length === 0 && cleaned.kept.length === 0)) return;
      const { removed, kept } = cleaned;
      const words = [
        ...removed.map((w) => `removed ${strayLine(w)}`),
        ...kept.map((w) => `kept ${strayLine(w)}${w.uncommitted ? ': a person decides (loopx worktree clean --force)' : ''}`),
      ];
      this.say({ event: 'worktrees_cleaned', removed, kept }, `worktrees: ${words.join('; ')}`);
    } catch (error) {
      this.say({ event: 'worktrees_clean_error', error: (error as Error).message }, `worktrees: ${(error as Error).message}`);
    }
  }

  private async pass(): Promise<{ idle: boolean; wakeAt: string | null; because: string; foreign: boolean }> {
    const foreign = this.recover();
    await this.cleanWorktrees();
    const tick = await tickMonitors(this.kernel);
    this.decisions.tellRefused(tick.refused);
    if (tick.fired.length || tick.expired.length) {
      this.say(
        { event: 'monitors', fired: tick.fired, expired: tick.expired },
        `monitors: ${[...tick.fired.map((m) => `${m} fired`), ...tick.expired.map((m) => `${m} expired`)].join(', ')}`,
      );
    }
    this.hooks.poke();
    let idle = true;
    let wakeAt: string | null = tick.nextCheckAt;
    let because = 'next monitor check';
    for (const goalId of this.goals()) {
      const answer = await this.serve(goalId);
      if (answer && runsSoon(answer)) idle = false;
      if (answer?.nextWakeAt && (!wakeAt || answer.nextWakeAt < wakeAt)) {
        wakeAt = answer.nextWakeAt;
        because = `${goalId}'s next wake`;
      }
    }
    if (this.o.once) this.closed = true;
    // Another process here runs a check: look again soon, as for a foreign turn, to take it over if that process dies.
    const checksElsewhere = this.agentKernel.read((db, now) => othersRunChecksHere(db, iso(now)));
    return { idle, wakeAt, because, foreign: foreign || checksElsewhere };
  }

  private goals(): string[] {
    if (this.o.goals.length) return this.o.goals;
    return this.agentKernel.read((db) =>
      listGoals(db)
        .filter((g) => g.status === 'active')
        .map((g) => g.id),
    );
  }

  /** Starts as many turns of one goal as the kernel allows now (one with --once); the last should-run answer. */
  private async serve(goalId: string): Promise<ShouldRun | undefined> {
    for (;;) {
      if (this.closed || this.stopping || this.reachedMax()) return undefined;
      const { answer, max, facts, host, review } = this.agentKernel.read((db, now) => {
        const goal = getGoal(db, goalId);
        // Reviews first, where this runner may review the goal's changes: they are what lets its work be done.
        // A goal whose review was turned off while changes waited keeps them reviewable by any agent but their implementer.
        const reviews = goal.review ? reviewerFits(goal.review, this.o.agent, this.o.host) : hasChangesInReview(db, goal.id);
        const review = reviews ? shouldRun(db, goal, now, { reviewer: this.o.agent }) : null;
        if (review?.run) return { host: goal.host, answer: review, max: goal.policy.maxConcurrent, facts: {}, review: true };
        if (goal.host && goal.host !== this.o.host)
          return {
            host: goal.host,
            answer: review ?? undefined,
            max: review ? goal.policy.maxConcurrent : 0,
            facts: {},
            review: review !== null,
          };
        // The plan its turn start follows: a todo whose failed worktree setup backs off is skipped.
        const answer = shouldRun(db, goal, now, { setupWaits: setupWaits(this.agentKernel.storeDir, goal, now) });
        // Why it waits, in the words VS Code uses: read only when it waits (a yes needs no reason).
        const facts = answer.run ? {} : shouldRunFacts(db, goal, now);
        return { answer, max: goal.policy.maxConcurrent, facts, host: goal.host, review: false };
      });
      if (!answer) return this.leftAlone(goalId, host as string);
      // A goal another host implements, whose changes this runner reviews: nothing to review now is a quiet wait.
      if (review && !answer.run) return answer;
      const own = [...this.turns.running.values()].filter((r) => r.turn.goalId === goalId).map((r) => r.turn.id);
      if (answer.run && !this.decisions.allowsTurn(goalId)) return undefined;
      this.decide(goalId, answer, own, max, facts);
      // should-run counts live claims; an agent that shipped may still be exiting: never run more hosts than allowed.
      if (!answer.run || own.length >= max || !(await this.startTurn(goalId, review ? 'review' : undefined)) || this.o.once) return answer;
    }
  }

  /** A goal a person gave another agent: its turns are not this runner's to start (said once until it changes). */
  private leftAlone(goalId: string, host: string): undefined {
    const key = `host|${host}`;
    if (this.lastDecision.get(goalId) === key) return undefined;
    this.lastDecision.set(goalId, key);
    this.say(
      { event: 'left_alone', goalId, goalHost: host },
      `${goalId}: left alone: a person chose ${host} for its turns, and this runner runs ${this.o.host}`,
    );
    return undefined;
  }

  /** A turn started for the goal: what was decided for it is said again when it next waits. */
  private async startTurn(goalId: string, role?: 'review'): Promise<boolean> {
    const began = await this.turns.start(goalId, role);
    if (began) this.lastDecision.delete(goalId);
    return began;
  }

  private decide(goalId: string, answer: ShouldRun, own: string[], max: number, facts: Omit<ShouldRunFacts, 'run' | 'reason'>): void {
    // Held by this runner's own turns: the honest wake is their end, not the lease or deadline should-run names.
    const ours = !answer.run && answer.reason === 'concurrency_limit' && own.length > 0;
    const key = `${answer.run}|${answer.reason}|${ours ? own.join(',') : answer.nextWakeAt}`;
    if (this.lastDecision.get(goalId) === key) return;
    this.lastDecision.set(goalId, key);
    this.say(
      { event: 'decision', goalId, ...answer, ...(ours ? { running: own } : {}) },
      decisionLine(goalId, answer, Date.now(), ours ? { running: own, max } : undefined, facts),
    );
  }

  /** Turns gone runners left open: finished, or adopted while their agent runs. True when another runner's turn is open. */
  private recover(): boolean {
    const seen = recoverTurns(this.agentKernel, {
      self: { pid: process.pid, runner: this.o.agent, host: this.o.host },
      ours: (id) => this.turns.running.has(id),
      turnLimitMs: this.o.turnLimitMs,
      echo: (turnId, line) => this.turns.echo(turnId, this.o.host)(line),
    });
    for (const r of seen.recovered) this.recovered(r);
    for (const a of seen.adopted) {
      this.say(
        { event: 'adopted', turnId: a.run.turn.id, todoId: a.run.turn.todoId, hostPid: a.run.host.pid, from: a.from, limitAt: a.limitAt },
        `${a.run.turn.id} (on ${a.run.turn.todoId}) adopted: ${a.from} is gone, its agent (pid ${a.run.host.pid}) still runs; held to its limit`,
      );
      this.turns.track(a.run);
    }
    return seen.foreign;
  }

  private recovered(r: Recovery): void {
    this.summary.recovered.push(r.turn.id);
    if (this.summary.recovered.length > SUMMARY_TURNS) this.summary.recovered.shift();
    this.say(
      {
        event: 'recovered',
        turnId: r.turn.id,
        resultKind: r.turn.resultKind,
        exitCode: r.exitCode,
        why: r.why,
        ...(r.adopted ? { adopted: true } : {}),
      },
      recoveredLine(r.turn, r.why),
    );
    this.refreshStatus();
  }

  private prune(): void {
    try {
      pruneTurnFolders(this.agentKernel);
    } catch {
      /* housekeeping: never stops the runner */
    }
  }

  private announceSleep(wakeAt: string | null, because: string): void {
    if (this.turns.running.size > 0) return; // the turn's lines say what is going on
    const line = sleepLine(wakeAt, because, Date.now());
    if (line === this.lastSleep) return;
    this.lastSleep = line;
    this.say({ event: 'sleeping', until: wakeAt, because: wakeAt ? because : 'store change' }, line);
  }

  /** A turn started or ended: STATUS.md is marked now and rewritten after a pause (statusMd), and when the runner stops. */
  private refreshStatus(): void {
    this.statusMd.changed();
  }

  private say(event: Record<string, unknown>, line: string): void {
    this.o.out(this.o.json ? `${JSON.stringify({ ...event, at: iso(Date.now()) })}\n` : `${line}\n`);
  }
}

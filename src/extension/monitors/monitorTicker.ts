import * as vscode from 'vscode';
import { type TickResult, tickMonitors } from '../../kernel/monitors/tick';
import { Disposable, MutableDisposable, toDisposable } from '../util/lifecycle';
import type { Log } from '../util/log';
import type { StoreModel, StoreSession } from '../store/storeModel';
import { loopxSetting } from '../loopxSettings';

export type TickerState = { ticking: true } | { ticking: false; why: 'untrusted' | 'off' | 'no_store'; message: string };

/** When the same check is still due after a tick (another window or process holds its run), look again this much later. */
const RETRY_MS = 5000;

/**
 * While a window is open, it runs due monitor checks itself (`loopx monitor tick`, in process): one timer armed for
 * the next due check or expiry, re-armed after every change. Checks run commands from the workspace, so only in a
 * trusted workspace (Workspace Trust); otherwise it says why in the Monitors view and runs nothing. Several windows
 * (and cron, CI, a runner) may tick the same store: each run is claimed in a transaction, so no check runs twice.
 */
export class MonitorTicker extends Disposable {
  private readonly timer = this.register(new MutableDisposable<vscode.Disposable>());
  private running: Promise<TickResult | undefined> | undefined;
  private readonly changed = this.register(new vscode.EventEmitter<TickerState>());
  readonly onDidChangeState = this.changed.event;
  /** Ticks this window ran (tests read them). */
  readonly ticks: TickResult[] = [];
  private lastState = '';

  constructor(
    private readonly session: StoreSession,
    private readonly model: StoreModel,
    private readonly log: Log,
    private readonly isTrusted: () => boolean = () => vscode.workspace.isTrusted,
  ) {
    super();
    this.register(model.onDidChange(() => this.arm()));
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.arm()));
    this.register(vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('loopx.monitors') && this.arm()));
    this.register(toDisposable(() => (this.timer.value = undefined)));
    this.arm();
  }

  get state(): TickerState {
    if (!this.isTrusted()) {
      return {
        ticking: false,
        why: 'untrusted',
        message:
          'Checks are not run in this window: the workspace is not trusted, and a check runs a command from it. Trust the workspace to run them here.',
      };
    }
    if (!(loopxSetting<boolean>('loopx.monitors.runChecks') ?? true)) {
      return {
        ticking: false,
        why: 'off',
        message:
          'Checks are not run by this window: its setting “Run Checks” (LoopX › Monitors) is off, so a runner or a scheduled job runs them.',
      };
    }
    if (!this.session.kernel) return { ticking: false, why: 'no_store', message: 'No store is open.' };
    return { ticking: true };
  }

  /** The next moment a tick can do something: a check due, a timer or an expiry, a lapsed run claim. */
  nextDue(): number | undefined {
    const active = new Set(
      this.model
        .goals()
        .filter((g) => g.status === 'active')
        .map((g) => g.id),
    );
    const now = Date.now();
    const times = this.model
      .monitors()
      .filter((m) => m.status === 'waiting' && active.has(m.goalId))
      .flatMap((m) => {
        const running = m.runningUntil !== null && Date.parse(m.runningUntil) > now ? Date.parse(m.runningUntil) : null;
        const check = m.nextCheckAt === null ? null : Math.max(Date.parse(m.nextCheckAt), running ?? 0);
        return [check, m.expiresAt === null ? null : Date.parse(m.expiresAt)].filter((t): t is number => t !== null);
      });
    return times.length ? Math.min(...times) : undefined;
  }

  private arm(): void {
    const state = this.state;
    const key = JSON.stringify(state);
    if (key !== this.lastState) {
      this.lastState = key;
      if (!state.ticking && state.why !== 'no_store') this.log.info(`monitors: ${state.message}`);
      this.changed.fire(state);
    }
    this.timer.value = undefined;
    if (!state.ticking || this.running) return;
    const next = this.nextDue();
    if (next === undefined) return;
    const delay = Math.min(Math.max(0, next - Date.now()) + 50, 2 ** 31 - 1);
    const handle = setTimeout(() => void this.tickNow(), delay);
    this.timer.value = { dispose: () => clearTimeout(handle) };
  }

  /** Runs every due check now (the "Check Monitors Now" command, and the timer). Refused when not trusted. */
  async tickNow(): Promise<TickResult | undefined> {
    if (this.running) return this.running;
    const state = this.state;
    const kernel = this.session.kernel;
    if (!state.ticking || !kernel) return undefined;
    this.running = (async () => {
      try {
        const result = await tickMonitors(kernel);
        this.ticks.push(result);
        for (const run of result.runs)
          this.log.info(
            `monitor ${run.monitorId} run ${run.n}: ${run.error ?? `exit ${run.exitCode}`} in ${run.durationMs} ms → ${run.outcome}`,
          );
        return result;
      } catch (error) {
        this.log.error('monitor tick failed', error);
        return undefined;
      } finally {
        this.running = undefined;
      }
    })();
    const result = await this.running;
    this.arm();
    // Still due (another ticker holds the run, or it could not be claimed): look again a little later, not at once.
    const next = this.nextDue();
    if (next !== undefined && next <= Date.now() && (result?.runs.length ?? 0) === 0) {
      const handle = setTimeout(() => this.arm(), RETRY_MS);
      this.timer.value = { dispose: () => clearTimeout(handle) };
    }
    return result;
  }
}

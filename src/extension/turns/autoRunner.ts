import * as vscode from 'vscode';
import { Disposable, toDisposable } from '../util/lifecycle';
import type { StoreModel } from '../store/storeModel';
import type { Log } from '../util/log';
import type { TurnRunner } from './turnRunner';
import { loopxSetting } from '../loopxSettings';

/**
 * Opt-in (loopx.autoRun.enabled): when a goal's should-run turns yes (a wake time passed, a human unblocked it, a
 * turn finished), start a turn on the configured host. Driven by the model's change events and the wake clock's
 * timer, never a foreground loop; should-run's concurrency and no_change rules keep it from running away, and it
 * stops with the window.
 */
export class AutoRunner extends Disposable {
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  /** Turn ids this runner started (tests read it). */
  readonly started: string[] = [];

  constructor(
    private readonly model: StoreModel,
    private readonly runner: TurnRunner,
    private readonly log: Log,
  ) {
    super();
    this.register(model.onDidChange(() => this.schedule()));
    this.register(runner.onDidFinish(() => this.schedule()));
    this.register(vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('loopx.autoRun') && this.schedule()));
    this.register(toDisposable(() => this.timer && clearTimeout(this.timer)));
  }

  private get enabled(): boolean {
    return loopxSetting<boolean>('loopx.autoRun.enabled') ?? false;
  }

  private schedule(): void {
    if (!this.enabled || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.tick();
    }, 300);
  }

  private async start(goalId: string, host: string, role?: 'review'): Promise<void> {
    const outcome = await this.runner.run(goalId, host, undefined, undefined, true, role); // unattended: a failed setup backs off
    if (!outcome.started) return;
    this.started.push(outcome.turn.id);
    this.log.info(`auto-run: started ${outcome.turn.id} for ${goalId} on ${host}${role ? ' (a review)' : ''}`);
  }

  private async tick(): Promise<void> {
    if (this.busy || !this.enabled) return;
    this.busy = true;
    try {
      const configured = loopxSetting<string>('loopx.autoRun.host') || 'custom';
      for (const goal of this.model.status()?.goals ?? []) {
        if (goal.status !== 'active') continue;
        // A change waiting for review first, on the goal's reviewer host (or the setting's): it is what lets work be done.
        // A review this window may not run (its host is not the goal's reviewer's) is said in the log, and the goal's own
        // turns still run.
        if (goal.counts.in_review > 0)
          await this.start(goal.id, goal.review?.reviewerHost ?? configured, 'review').catch((error: unknown) =>
            this.log.warn(`auto-run: no review of ${goal.id}: ${(error as Error).message}`),
          );
        if (!goal.shouldRun.run) continue;
        // The goal's own agent when a person chose one (New Goal, goal set-host); the setting's otherwise.
        await this.start(goal.id, goal.host ?? configured);
      }
    } catch (error) {
      this.log.error('auto-run could not start a turn', error);
    } finally {
      this.busy = false;
    }
  }
}

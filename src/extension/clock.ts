import type { StoreModel } from './store/storeModel';
import { Disposable, toDisposable } from './util/lifecycle';

/**
 * Time passes without the store changing: leases lapse, budget slots free, cooldowns end. Instead of polling, one
 * timer is armed for the next such moment (re-armed after every change), and a slow tick re-renders countdowns.
 */
export class WakeClock extends Disposable {
  private wakeTimer: NodeJS.Timeout | undefined;
  private readonly tick: NodeJS.Timeout;

  constructor(
    private readonly model: StoreModel,
    private readonly onTick: () => void,
    tickMs = 30_000,
  ) {
    super();
    this.register(model.onDidChange(() => this.arm()));
    this.tick = setInterval(() => this.onTick(), tickMs);
    this.register(
      toDisposable(() => {
        clearInterval(this.tick);
        if (this.wakeTimer) clearTimeout(this.wakeTimer);
      }),
    );
    this.arm();
  }

  /** The next instant an answer can change by itself: a wake time or a lease expiry. */
  nextMoment(): number | undefined {
    const report = this.model.status();
    if (!report) return undefined;
    const now = Date.now();
    const times = [...report.goals.map((g) => g.shouldRun.nextWakeAt), ...report.goals.map((g) => g.quota.cooldownUntil)]
      .filter((t): t is string => t !== null)
      .map((t) => Date.parse(t))
      .filter((t) => t > now);
    return times.length ? Math.min(...times) : undefined;
  }

  private arm(): void {
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    const next = this.nextMoment();
    if (next === undefined) return;
    // setTimeout caps at 2^31-1 ms; re-arming on the way is harmless.
    const delay = Math.min(next - Date.now() + 50, 2 ** 31 - 1);
    this.wakeTimer = setTimeout(() => this.model.invalidate(), delay);
  }
}

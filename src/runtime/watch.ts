import type { FSWatcher } from 'node:fs';
import type { ChangeSignal } from '../kernel/unitOfWork';

/**
 * Tells a long-lived process (the extension host) that another process changed the store, without polling the CLI.
 * The engine's change signal (`kernel.engine.changeSignal()`; SQLite: a file-system watch on `.loopx/` that wakes us
 * when the WAL or database file is written) wakes us; its version (SQLite's data version) is a cheap first filter, and
 * the newest event decides: every change appends an event, so a newest event we have not
 * seen (nor written ourselves, see `acknowledge`) is exactly "something changed". Its hash is compared as well as its
 * number, so a log cut and written again to the same length outside loopx is a change too.
 *
 * A file event can come before the commit it belongs to is visible: a writer appends its frames to the WAL (an
 * event), then publishes the commit in the shared-memory index, which it writes through a memory map (no event). A
 * writer descheduled in between, as on a loaded machine, left the change unseen until the next write (seconds, or
 * for good). So after an event that shows nothing new yet, the watcher looks again a few times over a few seconds
 * (SETTLE_MS): a bounded look after activity, never a poll while the store is idle.
 */
export const SETTLE_MS: readonly number[] = [25, 100, 300, 1000, 3000];

export class StoreWatcher {
  private watcher: Pick<FSWatcher, 'close' | 'on'> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastVersion: number;
  private lastSeq: number;
  private lastHash: string;
  private lastOutages: number;
  private readonly settleMs: readonly number[];

  constructor(
    private readonly signal: ChangeSignal,
    private readonly onChange: () => void,
    options: { settleMs?: readonly number[] } = {},
  ) {
    this.settleMs = options.settleMs ?? SETTLE_MS;
    this.lastVersion = this.dataVersion();
    ({ seq: this.lastSeq, hash: this.lastHash } = this.head());
    this.lastOutages = this.signal.outages?.() ?? 0;
  }

  /** Our own connection committed up to this event: not a change to report. */
  acknowledge(newest: { seq: number; hash: string } | undefined): void {
    if (newest && newest.seq > this.lastSeq) ({ seq: this.lastSeq, hash: this.lastHash } = newest);
  }

  start(): this {
    // A settled wake (the change is visible already: a team replica caught up first) is looked at now.
    this.watcher = this.signal.watch((settled) => {
      if (!settled || !this.check()) this.schedule();
    });
    this.watcher.on('error', () => this.stop());
    return this;
  }

  /**
   * Checks now (also useful after the window regains focus or a watch event was missed). True when another
   * connection committed since the last check (a change reported, or our own acknowledged writes).
   */
  check(): boolean {
    if (!this.signal.isOpen) return false;
    const version = this.dataVersion();
    if (version === this.lastVersion) return false;
    this.lastVersion = version;
    const { seq, hash } = this.head();
    const outages = this.signal.outages?.() ?? 0;
    if (seq !== this.lastSeq || hash !== this.lastHash || outages !== this.lastOutages) {
      this.lastSeq = seq;
      this.lastHash = hash;
      this.lastOutages = outages;
      this.onChange();
    }
    return true;
  }

  stop(): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** A file event: check shortly (events come in bursts), and again over SETTLE_MS while nothing new shows. */
  private schedule(): void {
    // A burst of events waits for the first look; an event while settling starts the looks over.
    if (this.timer && this.step === 0) return;
    if (this.timer) clearTimeout(this.timer);
    const look = (step: number) => {
      this.step = step;
      const wait = (this.settleMs[step] ?? 0) - (this.settleMs[step - 1] ?? 0);
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (!this.check() && step + 1 < this.settleMs.length) look(step + 1);
      }, wait);
    };
    look(0);
  }

  private step = 0;

  private head(): { seq: number; hash: string } {
    return this.signal.head();
  }

  private dataVersion(): number {
    return this.signal.version();
  }
}

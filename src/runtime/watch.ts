import { type FSWatcher, watch as fsWatch } from 'node:fs';
import { type SqliteDb, dataVersion } from '../kernel/db/sqliteDb';
import { logHead } from '../kernel/events/anchor';

/**
 * Tells a long-lived process (the extension host) that another process changed the store, without polling the CLI.
 * A file-system watch on `.loopx/` wakes us when the WAL or database file is written; the store's data version
 * (`dataVersion`) is a cheap first filter, and the newest event decides: every change appends an event, so a newest event we have not
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

type WatchFn = (dir: string, listener: (event: string, file: string | null) => void) => Pick<FSWatcher, 'close' | 'on'>;

export class StoreWatcher {
  private watcher: Pick<FSWatcher, 'close' | 'on'> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastVersion: number;
  private lastSeq: number;
  private lastHash: string;
  private readonly settleMs: readonly number[];
  private readonly watch: WatchFn;

  constructor(
    private readonly db: SqliteDb,
    private readonly storeDir: string,
    private readonly onChange: () => void,
    options: { settleMs?: readonly number[]; watch?: WatchFn } = {},
  ) {
    this.settleMs = options.settleMs ?? SETTLE_MS;
    this.watch = options.watch ?? ((dir, listener) => fsWatch(dir, { persistent: false }, (event, file) => listener(event, file)));
    this.lastVersion = this.dataVersion();
    ({ seq: this.lastSeq, hash: this.lastHash } = this.head());
  }

  /** Our own connection committed up to this event: not a change to report. */
  acknowledge(newest: { seq: number; hash: string } | undefined): void {
    if (newest && newest.seq > this.lastSeq) ({ seq: this.lastSeq, hash: this.lastHash } = newest);
  }

  start(): this {
    this.watcher = this.watch(this.storeDir, (_event, file) => {
      if (file && !String(file).startsWith('loopx.db')) return;
      this.schedule();
    });
    this.watcher.on('error', () => this.stop());
    return this;
  }

  /**
   * Checks now (also useful after the window regains focus or a watch event was missed). True when another
   * connection committed since the last check (a change reported, or our own acknowledged writes).
   */
  check(): boolean {
    if (!this.db.isOpen) return false;
    const version = this.dataVersion();
    if (version === this.lastVersion) return false;
    this.lastVersion = version;
    const { seq, hash } = this.head();
    if (seq !== this.lastSeq || hash !== this.lastHash) {
      this.lastSeq = seq;
      this.lastHash = hash;
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
    return logHead(this.db) ?? { seq: 0, hash: '' };
  }

  private dataVersion(): number {
    return dataVersion(this.db);
  }
}

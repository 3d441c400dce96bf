import { type FSWatcher, watch } from 'node:fs';
import type { SqliteDb } from './db/sqliteDb';
import { logHead } from './events/anchor';

/**
 * Tells a long-lived process (the extension host) that another process changed the store, without polling the CLI.
 * A file-system watch on `.loopx/` wakes us when the WAL or database file is written; `PRAGMA data_version` is a
 * cheap first filter, and the newest event decides: every change appends an event, so a newest event we have not
 * seen (nor written ourselves, see `acknowledge`) is exactly "something changed". Its hash is compared as well as its
 * number, so a log cut and written again to the same length outside loopx is a change too.
 */
export class StoreWatcher {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastVersion: number;
  private lastSeq: number;
  private lastHash: string;

  constructor(
    private readonly db: SqliteDb,
    private readonly storeDir: string,
    private readonly onChange: () => void,
    private readonly debounceMs = 25,
  ) {
    this.lastVersion = this.dataVersion();
    ({ seq: this.lastSeq, hash: this.lastHash } = this.head());
  }

  /** Our own connection committed up to this event: not a change to report. */
  acknowledge(newest: { seq: number; hash: string } | undefined): void {
    if (newest && newest.seq > this.lastSeq) ({ seq: this.lastSeq, hash: this.lastHash } = newest);
  }

  start(): this {
    this.watcher = watch(this.storeDir, { persistent: false }, (_event, file) => {
      if (file && !String(file).startsWith('loopx.db')) return;
      this.schedule();
    });
    this.watcher.on('error', () => this.stop());
    return this;
  }

  /** Checks now (also useful after the window regains focus or a watch event was missed). */
  check(): void {
    if (!this.db.isOpen) return;
    const version = this.dataVersion();
    if (version === this.lastVersion) return;
    this.lastVersion = version;
    const { seq, hash } = this.head();
    if (seq !== this.lastSeq || hash !== this.lastHash) {
      this.lastSeq = seq;
      this.lastHash = hash;
      this.onChange();
    }
  }

  stop(): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.check();
    }, this.debounceMs);
  }

  private head(): { seq: number; hash: string } {
    return logHead(this.db) ?? { seq: 0, hash: '' };
  }

  private dataVersion(): number {
    return Number(this.db.prepare('PRAGMA data_version').get()?.data_version ?? 0);
  }
}

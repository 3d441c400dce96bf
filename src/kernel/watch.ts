import { type FSWatcher, watch } from 'node:fs';
import type { SqliteDb } from './db/sqliteDb';

/**
 * Tells a long-lived process (the extension host) that another process changed the store, without polling the CLI.
 * A file-system watch on `.loopx/` wakes us when the WAL or database file is written; `PRAGMA data_version` is a
 * cheap first filter, and the newest event's sequence number decides: every change appends an event, so a new
 * sequence number we have not seen (nor written ourselves, see `acknowledge`) is exactly "something changed".
 */
export class StoreWatcher {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastVersion: number;
  private lastSeq: number;

  constructor(
    private readonly db: SqliteDb,
    private readonly storeDir: string,
    private readonly onChange: () => void,
    private readonly debounceMs = 25,
  ) {
    this.lastVersion = this.dataVersion();
    this.lastSeq = this.headSeq();
  }

  /** Our own connection committed up to `seq`: not a change to report. */
  acknowledge(seq: number): void {
    if (seq > this.lastSeq) this.lastSeq = seq;
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
    const seq = this.headSeq();
    if (seq !== this.lastSeq) {
      this.lastSeq = seq;
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

  private headSeq(): number {
    return Number(this.db.prepare('SELECT coalesce(max(seq), 0) AS seq FROM events').get()?.seq ?? 0);
  }

  private dataVersion(): number {
    return Number(this.db.prepare('PRAGMA data_version').get()?.data_version ?? 0);
  }
}

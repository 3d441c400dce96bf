import { type FSWatcher, watch } from 'node:fs';
import type { SqliteDb } from './db/sqliteDb';

/**
 * Tells a long-lived process (the extension host) that another process changed the store, without polling the CLI.
 * A file-system watch on `.loopx/` wakes us when the WAL or database file is written; `PRAGMA data_version`
 * on our own connection then says whether another connection really committed (so our own writes and
 * checkpoints are not reported as foreign changes).
 */
export class StoreWatcher {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastVersion: number;

  constructor(
    private readonly db: SqliteDb,
    private readonly storeDir: string,
    private readonly onChange: () => void,
    private readonly debounceMs = 25,
  ) {
    this.lastVersion = this.dataVersion();
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
    if (version !== this.lastVersion) {
      this.lastVersion = version;
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

  private dataVersion(): number {
    return Number(this.db.prepare('PRAGMA data_version').get()?.data_version ?? 0);
  }
}

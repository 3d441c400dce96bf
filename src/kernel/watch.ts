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
/**
 * After a file event whose check found no new commit, look again after these delays (ms). The event comes with the
 * writer's WAL writes, before its commit is visible: the commit follows the WAL's fsync (synchronous=FULL), which a
 * busy machine can stretch past the first check, and while another connection (VS Code's) is open the writer does
 * not checkpoint at close, so no later event would come: the change was seen only at the next write.
 */
const FOLLOW_UP_MS = [100, 400, 1500];

export class StoreWatcher {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Which check the pending timer is: 0 the first after an event, then the follow-ups. */
  private attempt = 0;
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
    this.watcher = watch(this.storeDir, { persistent: false }, (_event, file) => this.fileChanged(file ? String(file) : null));
    this.watcher.on('error', () => this.stop());
    return this;
  }

  /** A file in `.loopx/` changed (the watch's callback; `null` when the platform does not say which). */
  fileChanged(file: string | null): void {
    if (file && !file.startsWith('loopx.db')) return;
    this.schedule(0);
  }

  /** Checks now (also useful after the window regains focus or a watch event was missed). */
  check(): void {
    this.checkVersion();
  }

  /** Reports a foreign change if there is one; false when no commit has become visible since the last look. */
  private checkVersion(): boolean {
    if (!this.db.isOpen) return true;
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

  /**
   * One check `debounceMs` after a file event, then, while no commit has become visible, follow-ups (FOLLOW_UP_MS).
   * A new event while a follow-up waits checks again soon.
   */
  private schedule(attempt: number): void {
    if (this.timer) {
      if (attempt > 0 || this.attempt === 0) return;
      clearTimeout(this.timer);
    }
    this.attempt = attempt;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        if (!this.checkVersion() && attempt < FOLLOW_UP_MS.length) this.schedule(attempt + 1);
      },
      attempt === 0 ? this.debounceMs : (FOLLOW_UP_MS[attempt - 1] as number),
    );
  }

  private head(): { seq: number; hash: string } {
    return logHead(this.db) ?? { seq: 0, hash: '' };
  }

  private dataVersion(): number {
    return Number(this.db.prepare('PRAGMA data_version').get()?.data_version ?? 0);
  }
}

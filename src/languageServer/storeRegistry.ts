import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kernel } from '../kernel/kernel';
import { StoreWatcher } from '../runtime/watch';
import type { SqliteDb } from '../kernel/db/sqliteDb';
import { StoreSnapshot } from '../kernel/db/storeSnapshot';
import { teamPointerPath } from '../kernel/team/teamPointer';

const RETRY_MS = 5000;

export interface OpenStore {
  root: string;
  kernel: Kernel;
  /** The store's answers since the watcher last reported a change; what the per-keystroke checks read. */
  snapshot: StoreSnapshot;
  /** Reads through `snapshot` (within the kernel's read transaction on a miss). */
  read<T>(fn: (db: SqliteDb) => T): T;
}

/**
 * The stores goal files belong to: the nearest `.loopx/loopx.db` above each file (one per workspace folder in a
 * multi-root window). Each is opened read-only and followed with the kernel's StoreWatcher; the server never writes.
 */
export class StoreRegistry {
  /** Per root: the open store or why not, and whether a team pointer was there when it was opened. */
  private readonly stores = new Map<
    string,
    { store: OpenStore | null; problem: string | null; watcher?: StoreWatcher; at: number; team: boolean }
  >();

  constructor(private readonly onChange: (root: string) => void) {}

  /** The store for a file, or why there is none (null problem: no store above the file at all). */
  forFile(filePath: string): { store: OpenStore | null; problem: string | null } {
    const root = findRoot(dirname(filePath));
    if (!root) return { store: null, problem: null };
    // A team pointer written or removed since (`loopx team push`, `join`, `leave`): the store is elsewhere now.
    const team = existsSync(teamPointerPath(root));
    if (this.stores.get(root)?.team !== team) this.forget(root);
    const known = this.stores.get(root);
    // A store that could not be opened (an older schema a CLI call will upgrade, a busy disk) is tried again later.
    if (known?.store || (known?.problem && Date.now() - known.at < RETRY_MS)) return known;
    try {
      const kernel = Kernel.openReadOnly(root);
      const snapshot = new StoreSnapshot();
      const store: OpenStore = { root, kernel, snapshot, read: (fn) => kernel.read((db) => fn(snapshot.over(db))) };
      const watcher = new StoreWatcher(kernel.engine.changeSignal(), () => {
        snapshot.invalidate();
        this.onChange(root);
      }).start();
      this.stores.set(root, { store, problem: null, watcher, at: Date.now(), team });
      return { store, problem: null };
    } catch (error) {
      const problem = `the store in ${root} could not be opened: ${(error as Error).message}`;
      this.stores.set(root, { store: null, problem, at: Date.now(), team });
      return { store: null, problem };
    }
  }

  /** Checks every store now (a watch event may have been missed, e.g. on a network disk). */
  checkAll(): void {
    for (const entry of this.stores.values()) entry.watcher?.check();
  }

  dispose(): void {
    for (const root of [...this.stores.keys()]) this.forget(root);
  }

  private forget(root: string): void {
    const entry = this.stores.get(root);
    entry?.watcher?.stop();
    entry?.store?.kernel.close();
    this.stores.delete(root);
  }
}

function findRoot(start: string): string | null {
  let dir = start;
  for (;;) {
    if (Kernel.hasStore(dir)) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

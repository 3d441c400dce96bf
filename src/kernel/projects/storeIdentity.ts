import { existsSync } from 'node:fs';
import { Kernel } from '../kernel';
import { chooseDriver, openDb } from '../db/openDb';
import type { SqliteDb } from '../db/sqliteDb';
import { inTeamMode, teamReplicaPath } from '../team/teamPointer';
import { firstEventHash } from '../events/anchor';

/** The hash of a store's first event (its identity wherever its folder goes), or null when it cannot be read. */
export function readStoreId(root: string): string | null {
  const path = storeFileOf(root);
  if (!existsSync(path)) return null;
  let db: SqliteDb | undefined;
  try {
    db = openDb(path, chooseDriver(), { readOnly: true });
    return firstEventHash(db);
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

const storeFileOf = (root: string): string => (inTeamMode(root) ? teamReplicaPath(root) : Kernel.storePath(root));

/** The same identity from an open store (init, VS Code, a team join): no second connection. */
export function kernelStoreId(kernel: Kernel): string | null {
  try {
    return kernel.read(firstEventHash);
  } catch {
    return null;
  }
}

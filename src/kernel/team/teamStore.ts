import { Kernel } from '../kernel';
import { type ConnectionSettings, SyncPg } from './syncPg';
import type { TeamEngine } from './teamEngine';
import { teamError } from './teamErrors';
import { type TeamKernelOptions, openTeamKernelWith } from './teamKernel';
import { TEAM_SCHEMA_SQL } from './teamSchema';

export type { TeamKernelOptions } from './teamKernel';

/** How a process reaches the team store: one home, teamPointer.ts (re-exported for existing callers). */
export { teamConnection } from './teamPointer';

/** Creates (or brings up to date) the team store's schema and roles, as the database owner. */
export function installTeamSchema(settings: ConnectionSettings): void {
  const pg = new SyncPg(settings);
  try {
    pg.query(TEAM_SCHEMA_SQL);
  } catch (error) {
    throw teamError(error);
  } finally {
    pg.close();
  }
}

/**
 * Opens the kernel over a team store (teamKernel.ts): the same kernel, its writes committed to the PostgreSQL log, its
 * reads from the replica after catching up.
 */
export function openTeamKernel(root: string, options: TeamKernelOptions): { kernel: Kernel; engine: TeamEngine } {
  return openTeamKernelWith((r, db, o) => Kernel.fromDb(r, db, o), root, options);
}

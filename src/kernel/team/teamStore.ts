import { Kernel } from '../kernel';
import type { ConnectionSettings } from './connectionSettings';
import { PgError, SyncPg } from './syncPg';
import type { TeamEngine } from './teamEngine';
import { teamError } from './teamErrors';
import { type TeamKernelOptions, openTeamKernelWith } from './teamKernel';
import { HUMANS_ROLE, TEAM_SCHEMA_SQL } from './teamSchema';

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
 * Whether the role that installed the schema (the owner) may make a person's decisions, and what was done about it:
 * `member` it already was (a superuser is), `granted` team init made it a member of loopx_humans just now (it created
 * the role, or has CREATEROLE or ADMIN on it), `grant_needed` it may not grant itself the role: `grant` is the exact
 * statement a superuser runs. Without membership the owner cannot push its own store (its history has a person's
 * decisions, which the authority trigger refuses to a role outside loopx_humans).
 */
export interface OwnerMembership {
  role: string;
  humans: 'member' | 'granted' | 'grant_needed';
  grant: string;
}

/** Makes the connecting role (the owner running `team init`) a member of loopx_humans when it can; never throws 42501. */
export function grantOwnerHumans(settings: ConnectionSettings): OwnerMembership {
  const pg = new SyncPg(settings);
  try {
    const [row] = pg.query(
      `SELECT current_user::text AS role, quote_ident(current_user) AS quoted, pg_has_role(current_user, '${HUMANS_ROLE}', 'MEMBER') AS member`,
    );
    const role = String(row?.role);
    const grant = `GRANT ${HUMANS_ROLE} TO ${String(row?.quoted)};`;
    if (row?.member === true) return { role, humans: 'member', grant };
    try {
      pg.query(`GRANT ${HUMANS_ROLE} TO CURRENT_USER`);
      return { role, humans: 'granted', grant };
    } catch (error) {
      // Not allowed to grant it (no CREATEROLE, no ADMIN on a role someone else created): a superuser must.
      if (error instanceof PgError && error.code === '42501') return { role, humans: 'grant_needed', grant };
      throw error;
    }
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

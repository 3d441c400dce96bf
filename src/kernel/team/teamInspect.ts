import { openDb } from '../db/openDb';
import { migrate } from '../db/migrate';
import type { SqliteDb } from '../db/sqliteDb';
import { insertEventRow } from '../events/log';
import type { SyncPg } from './syncPg';
import { EVENTS_AFTER, rowsToEvents } from './teamLog';
import { HUMAN_ONLY_KINDS } from '../authority';
import { AGENTS_ROLE, HUMANS_ROLE } from './teamRoles';
import { PERSONS_PAYLOADS } from '../authority';

/**
 * Looking at a team store without changing it: the log copied into an empty SQLite store (where the one chain check,
 * verifyChain, and the anchor check run, as on a local store), and what the connection is (role, head, durability).
 * Moving in verifies on arrival with the copy; `log verify`, `doctor` and `team status` read through here.
 */

const PAGE = 5000;

/** The team log as `pg` sees it (inside its transaction, if one is open), copied event for event into a new store. */
export function copyTeamLog(pg: SyncPg): SqliteDb {
  const copy = openDb(':memory:');
  try {
    migrate(copy);
    for (let after = 0; ;) {
      const rows = pg.query(`${EVENTS_AFTER} LIMIT $2`, [after, PAGE]);
      const events = rowsToEvents(rows);
      const last = events.at(-1);
      if (!last) break;
      // The data column as stored, byte for byte: the hash covers exactly that text.
      events.forEach((event, i) => insertEventRow(copy, event, String(rows[i]?.data)));
      after = last.seq;
    }
    return copy;
  } catch (error) {
    copy.close();
    throw error;
  }
}

export interface TeamStoreFacts {
  /** The database role this connection logged in as. */
  role: string;
  /** Whether it is a person's role (member of loopx_humans): it may make a person's decisions. */
  human: boolean;
  /** Whether it is an agent's role (member of loopx_agents). */
  agent: boolean;
  /** The newest event's seq in the team log (0 for an empty log), or null when the schema is not installed. */
  headSeq: number | null;
  synchronousCommit: string;
  serverVersion: string;
}

/**
 * What the database's checks do not refuse yet: the human-only kinds its authority trigger does not list, the
 * person's acts by data (PERSONS_PAYLOADS) its `persons_act` does not know, before the data checks existed, events of
 * any kind with any data, and, with a transition check from before times were judged on arrival, forged times and
 * the kernel's release of another login's live claim. Its schema was installed by an older loopx, so an agent's login could still write
 * those with raw SQL until the owner runs `loopx team init` again. Empty when current; null when not installed.
 */
export function authorityBehind(pg: SyncPg): string[] | null {
  const rows = pg.query(
    `SELECT p.proname AS name, p.prosrc AS src FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'loopx' AND p.proname IN ('check_authority', 'persons_act', 'check_payload', 'check_transition', 'time_refusal')`,
  );
  const src = (name: string) => rows.find((r) => r.name === name)?.src as string | undefined;
  const authority = src('check_authority');
  if (authority === undefined) return null;
  const persons = src('persons_act') ?? '';
  return [
    ...HUMAN_ONLY_KINDS.filter((kind) => !authority.includes(`'${kind}'`)),
    ...PERSONS_PAYLOADS.map((r) => r.act).filter((act) => !persons.includes(`'${act.replace(/'/g, "''")}'`)),
    ...(src('check_payload') === undefined ? ["events of kinds loopx does not write, or data that does not fit its kind's schema"] : []),
    // What is judged as an event arrives (teamTransitionSql.ts): a transition check that does not ask it is older.
    ...(src('check_transition') !== undefined &&
    (src('time_refusal') === undefined || !src('check_transition')?.includes('arrival_refusal'))
      ? ["events stamped ahead of the server's clock or behind the log, and the kernel's release of another login's live claim"]
      : []),
    ...(src('time_refusal') !== undefined && !src('time_refusal')?.includes('leaseExpiresAt')
      ? ['claims whose lease ends more than a day after they were made']
      : []),
  ];
}

/** Who this connection is and where the log's head is; a database without loopx's schema has headSeq null. */
export function teamStoreFacts(pg: SyncPg): TeamStoreFacts {
  const [row] = pg.query(
    `SELECT current_user AS role,
            pg_has_role(current_user, oid_h, 'MEMBER') AS human,
            pg_has_role(current_user, oid_a, 'MEMBER') AS agent,
            current_setting('synchronous_commit') AS sync,
            current_setting('server_version') AS version,
            to_regclass('loopx.head') IS NOT NULL AS installed
       FROM (SELECT (SELECT oid FROM pg_roles WHERE rolname = $1) AS oid_h, (SELECT oid FROM pg_roles WHERE rolname = $2) AS oid_a) r`,
    [HUMANS_ROLE, AGENTS_ROLE],
  );
  const installed = row?.installed === true;
  const head = installed ? pg.query('SELECT seq FROM loopx.head')[0] : undefined;
  return {
    role: String(row?.role ?? ''),
    human: row?.human === true,
    agent: row?.agent === true,
    headSeq: installed ? Number(head?.seq ?? 0) : null,
    synchronousCommit: String(row?.sync ?? ''),
    serverVersion: String(row?.version ?? ''),
  };
}

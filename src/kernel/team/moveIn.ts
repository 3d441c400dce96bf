import { randomUUID } from 'node:crypto';
import type { SqliteDb } from '../db/sqliteDb';
import { logHead } from '../events/anchor';
import { rowToEvent } from '../events/log';
import { verifyChain } from '../events/verify';
import { InvalidInputError, RefusedError } from '../errors';
import type { ConnectionSettings } from './connectionSettings';
import { SyncPg } from './syncPg';
import { commitStatements } from './teamLog';
import { copyTeamLog } from './teamInspect';
import { TeamNotEmptyError, TeamPushRunningError, teamError } from './teamErrors';
import { limitSql } from '../db/limitSql';

const PAGE = 500;
/**
 * The push lock: a transaction-scoped advisory lock of the team database (any role may take one; it ends with COMMIT
 * or ROLLBACK, or the connection). A second push is refused at once instead of queueing on the log's head behind a
 * move of thousands of events (where its wait could outlast the batch timeout and read as an unreachable server).
 * The head's row lock still decides the order for everyone else.
 */
const PUSH_LOCK = { text: 'SELECT pg_try_advisory_xact_lock(1819242352, 1) AS taken' }; // 'loop' as int32, then 1

/**
 * Moves an existing store into an empty team store: every event of its log, as it is (same seqs, times, actors,
 * hashes), in one PostgreSQL transaction with one operation id. The local chain is verified before anything is sent,
 * and the log as PostgreSQL holds it is read back and verified again before COMMIT (on arrival): a team log is never
 * left half moved in or different from the store it came from. The pusher's role must be allowed every event it
 * carries (a person's decisions need `loopx_humans`: the database owner or a person moves a store in). One push at a
 * time: a second one at once is refused (team_push_running), one after it finds the log not empty (team_not_empty).
 */
export function moveStoreIn(source: SqliteDb, settings: ConnectionSettings): { events: number; head: { seq: number; hash: string } } {
  const local = verifyChain(source);
  if (!local.ok)
    throw new RefusedError(
      'log_broken',
      `this store's event log is broken at event ${local.firstBadSeq} (${local.problem}); nothing was moved`,
    );
  const head = logHead(source);
  if (!head) throw new InvalidInputError('this store has no events to move');
  const pg = new SyncPg(settings);
  try {
    const [, push] = pg.batch([{ text: 'BEGIN' }, PUSH_LOCK]);
    if (push?.[0]?.taken !== true) throw new TeamPushRunningError();
    const lock = pg.query('SELECT seq FROM loopx.lock_head()');
    const teamSeq = Number(lock[0]?.seq ?? 0);
    if (teamSeq !== 0) throw new TeamNotEmptyError(teamSeq);
    const opId = randomUUID();
    const page = source.prepare(`SELECT * FROM events WHERE seq > ? ORDER BY seq ${limitSql(PAGE)}`);
    for (let after = 0; ;) {
      const events = page.all(after).map(rowToEvent);
      const last = events.at(-1);
      if (!last) break;
      // The operation id covers the whole move: its row goes in with the first page, its events with every page.
      const statements = commitStatements(opId, events).filter((s) => s.text.startsWith('INSERT INTO loopx.events'));
      if (after === 0)
        statements.unshift({ text: 'INSERT INTO loopx.ops (op_id, first_seq, last_seq) VALUES ($1, 1, $2)', values: [opId, head.seq] });
      pg.batch(statements);
      after = last.seq;
    }
    const arrived = verifyArrival(pg);
    if (!arrived.ok || arrived.head?.seq !== head.seq || arrived.head.hash !== head.hash)
      throw new RefusedError('log_broken', `the log did not arrive intact (${arrived.problem ?? 'its head differs'}); nothing was moved`);
    pg.query('COMMIT');
    return { events: head.seq, head };
  } catch (error) {
    try {
      pg.query('ROLLBACK');
    } catch {
      /* the connection is gone: nothing was committed */
    }
    throw teamError(error);
  } finally {
    pg.close();
  }
}

/** The team log as this transaction sees it, copied into an empty store and verified with the same chain check. */
function verifyArrival(pg: SyncPg): { ok: boolean; problem: string | null; head: { seq: number; hash: string } | null } {
  const copy = copyTeamLog(pg);
  try {
    const result = verifyChain(copy);
    return { ok: result.ok, problem: result.problem, head: logHead(copy) };
  } finally {
    copy.close();
  }
}

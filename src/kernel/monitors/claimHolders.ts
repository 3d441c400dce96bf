import type { SqliteDb } from '../db/sqliteDb';
import { processAlive, processStart } from '../processes';
import { nodeOs } from '../nodeOs';

/**
 * Who runs a claimed check: the ticker's process, named in its `monitor.run_claimed` event (the hash-chained log, not a
 * file an agent could write). A ticker killed mid-run (kill -9, a crash) leaves its claim until the claim's deadline;
 * a ticker on the same machine that sees the holder gone takes the check over at once, as a runner adopts the turns
 * of a killed runner by its launcher marker. A holder on another machine (a team store) is not looked at: its claim
 * lapses at its deadline.
 */
export interface ClaimHolder {
  host: string;
  pid: number;
  /** When the process started (Linux: clock ticks since boot), so a pid reused since is not taken for it. */
  start?: number;
}

/** This process, as a claim names it. */
export function thisTicker(): ClaimHolder {
  const start = processStart(process.pid);
  return { host: nodeOs().hostname(), pid: process.pid, ...(start === undefined ? {} : { start }) };
}

/**
 * Checks that are due to run again because their claim is held by a ticker on this machine that is gone: claimed and
 * not lapsed, their claim event naming a holder whose process no longer runs. Oldest claim first.
 */
export function checksOfDeadTickers(db: SqliteDb, at: string): string[] {
  return heldHere(db, at)
    .filter((c) => !processAlive(c.holder.pid, c.holder.start))
    .map((c) => c.id);
}

/**
 * True while another live process on this machine runs a check (a runner that stays up looks again soon: should that
 * process be killed, its run is taken over at the next tick, not at the claim's deadline).
 */
export function othersRunChecksHere(db: SqliteDb, at: string): boolean {
  return heldHere(db, at).some((c) => c.holder.pid !== process.pid && processAlive(c.holder.pid, c.holder.start));
}

/** The claims not lapsed yet whose holder is a process on this machine, with it. */
function heldHere(db: SqliteDb, at: string): { id: string; holder: ClaimHolder }[] {
  const held = db
    .prepare(
      `SELECT m.id, m.todo_id, m.running_token FROM monitors m JOIN goals g ON g.id = m.goal_id
        WHERE m.status = 'waiting' AND m.kind = 'check' AND m.approval <> 'pending' AND g.status = 'active'
          AND m.running_until > ? AND (m.expires_at IS NULL OR m.expires_at > ?)
        ORDER BY m.running_until, m.num`,
    )
    .all(at, at);
  if (held.length === 0) return [];
  const host = nodeOs().hostname();
  const claimOf = db.prepare(`SELECT data FROM events WHERE todo_id = ? AND kind = 'monitor.run_claimed' ORDER BY seq DESC LIMIT 20`);
  const here: { id: string; holder: ClaimHolder }[] = [];
  for (const row of held) {
    const claims = claimOf
      .all(String(row.todo_id))
      .map((r) => JSON.parse(String(r.data)) as { id: string; token: string; holder?: ClaimHolder });
    const holder = claims.find((c) => c.id === row.id && c.token === row.running_token)?.holder;
    if (holder && holder.host === host) here.push({ id: String(row.id), holder });
  }
  return here;
}

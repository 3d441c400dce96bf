import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kernel } from './kernel';
import type { SqliteDb } from './db/sqliteDb';
import { RefusedError } from './errors';
import { requireHumanChannel } from './authority';
import { GENESIS_HASH, SQL_EVENT_BODY } from './events/hashChain';
import { prefixDigest, rehashMatches, verifyChain, type VerifyResult } from './events/log';
import { sha256 } from './nodeCrypto';

/**
 * A store whose log was found broken is marked (`.loopx/log-broken.json`) until a human decides: agents' writes are
 * refused meanwhile, so no agent acts on a log that was rewritten. `loopx log verify`, `doctor`, VS Code's Verify Log
 * and every write's tail check set it; `loopx log accept` (or Accept Log in VS Code) records the decision and clears it.
 */
export const BROKEN_MARKER = 'log-broken.json';

export interface BrokenLog {
  firstBadSeq: number;
  problem: string;
  foundAt: string;
}

export function brokenLog(storeDir: string): BrokenLog | null {
  const path = join(storeDir, BROKEN_MARKER);
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as BrokenLog;
  } catch {
    return { firstBadSeq: 0, problem: 'the marker is unreadable', foundAt: '' };
  }
}

/** Best effort: a read-only store cannot be marked, and its writes are refused anyway. */
export function markBroken(storeDir: string, found: { firstBadSeq: number | null; problem: string | null }, at: string): void {
  try {
    const marker: BrokenLog = { firstBadSeq: found.firstBadSeq ?? 0, problem: found.problem ?? 'broken', foundAt: at };
    writeFileSync(join(storeDir, BROKEN_MARKER), `${JSON.stringify(marker, null, 2)}\n`);
  } catch {
    /* nothing more to do: the break is reported to whoever verified */
  }
}

export function logBrokenError(found: { firstBadSeq: number | null; problem: string | null }): RefusedError {
  return new RefusedError(
    'log_broken',
    `the event log is broken at event ${found.firstBadSeq}: ${found.problem}; agents may not write until a human decides`,
    'a human looks (loopx log verify, loopx doctor), then restores a backup (loopx restore FILE) or accepts the log as it is (loopx log accept)',
  );
}

/**
 * The cheap check every write makes before it appends: the newest event's hash is recomputed and its link to the
 * one before it compared. Null when sound.
 */
export function checkTail(db: SqliteDb): { firstBadSeq: number; problem: string } | null {
  const rows = db
    .prepare(`SELECT seq, hash, prev_hash, prev_hash || char(10) || ${SQL_EVENT_BODY} AS input FROM events ORDER BY seq DESC LIMIT 2`)
    .all();
  const head = rows[0];
  if (!head) return null;
  const seq = Number(head.seq);
  const before = rows[1];
  const expectedPrev = before ? String(before.hash) : GENESIS_HASH;
  if (before && Number(before.seq) !== seq - 1) return { firstBadSeq: seq - 1, problem: `sequence gap before event ${seq}` };
  if (String(head.prev_hash) !== expectedPrev) return { firstBadSeq: seq, problem: 'prevHash does not match the previous event' };
  // The fast SQL-built body matches the writer's for every event the writer produced; a mismatch is re-checked in full.
  if (sha256(String(head.input)) !== head.hash && !rehashMatches(db, seq, expectedPrev))
    return { firstBadSeq: seq, problem: 'hash does not match the event content' };
  return null;
}

/** `loopx log accept`: a human records that the log, broken as found, is accepted from here on. */
export function acceptBrokenLog(kernel: Kernel): {
  accepted: boolean;
  seq: number | null;
  firstBadSeq: number | null;
  problem: string | null;
} {
  requireHumanChannel(kernel.actor, 'to accept a broken event log');
  const result = kernel.write((tx) => {
    const found: VerifyResult = verifyChain(tx.db);
    if (found.ok) return { accepted: false, seq: null, firstBadSeq: null, problem: null };
    const head = Number(tx.db.prepare('SELECT max(seq) AS s FROM events').get()?.s ?? 0);
    const digest = prefixDigest(tx.db, head + 1);
    const event = tx.emit({
      kind: 'log.accepted',
      goalId: null,
      todoId: null,
      data: { firstBadSeq: found.firstBadSeq ?? 0, problem: found.problem ?? '', digest },
    });
    return { accepted: true, seq: event.seq, firstBadSeq: found.firstBadSeq, problem: found.problem };
  });
  rmSync(join(kernel.storeDir, BROKEN_MARKER), { force: true });
  return result;
}

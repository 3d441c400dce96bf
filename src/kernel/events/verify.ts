import type { SqliteDb } from '../db/sqliteDb';
import { GENESIS_HASH, SQL_EVENT_BODY, eventHash, hashedFieldsOf } from './hashChain';
import { nodeCrypto, sha256 } from '../nodeCrypto';
import { limitSql } from '../db/limitSql';

// Checking the hash chain: the whole walk (verifyChain), the cheap look at its tail every write makes (checkTail),
// and what a human's acceptance of a break records (prefixDigest). Apart from the appender, so that both it and the
// log's health rules (logHealth.ts) use them without importing each other.

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

export interface VerifyResult {
  ok: boolean;
  events: number;
  firstBadSeq: number | null;
  /** Why the first bad event is bad (hash mismatch, broken link, gap in sequence). */
  problem: string | null;
  /** Breaks a human accepted (`loopx log accept`): the seq of each log.accepted event the walk resumed at. */
  accepted?: number[];
}

const PAGE = 5000;
const NODE_CRYPTO_FROM_EVENTS = 1000;

/**
 * Walks the chain in pages (bounded memory) and reports the first event whose link or hash is wrong. A break a
 * human accepted is passed over when the events before the acceptance are still exactly as they were accepted.
 */
export function verifyChain(db: SqliteDb, from?: { seq: number; hash: string }): VerifyResult {
  const total = Number(db.prepare('SELECT count(*) AS n FROM events').get()?.n ?? 0);
  // node:crypto's SHA-256 (which sha256 uses once it is loaded) pays for its load, 7 to 13 ms in a fresh process, from
  // about a thousand events on: `log verify` over 10,000 events with @noble/hashes alone took 1.42x to 1.50x the CPU
  // time (bench/cliAb.ts).
  if (total - (from?.seq ?? 0) >= NODE_CRYPTO_FROM_EVENTS) nodeCrypto();
  // One string per event: the exact hash input (prevHash, newline, body), read back in pages.
  const page = db.prepare(
    `SELECT seq, hash, prev_hash || char(10) || ${SQL_EVENT_BODY} AS input FROM events WHERE seq > ? ORDER BY seq ${limitSql(PAGE)}`,
  );
  // `from`: an event already verified; only the ones after it are checked (a window verifying new events).
  let prevHash = from?.hash ?? GENESIS_HASH;
  let expectedSeq = (from?.seq ?? 0) + 1;
  const accepted: number[] = [];
  for (;;) {
    const rows = page.all(expectedSeq - 1);
    if (rows.length === 0) break;
    let resumed = false;
    for (const row of rows) {
      const seq = Number(row.seq);
      let problem: string | null = null;
      let at = seq;
      const input = row.input as string;
      if (seq !== expectedSeq) [problem, at] = [`sequence gap: expected event ${expectedSeq}, found ${seq}`, expectedSeq];
      else if (!input.startsWith(prevHash) || input.charCodeAt(64) !== 10) problem = 'prevHash does not match the previous event';
      else if (sha256(input) !== row.hash && !rehashMatches(db, seq, prevHash)) problem = 'hash does not match the event content';
      if (problem !== null) {
        const acceptance = acceptanceCovering(db, at);
        if (!acceptance) return { ok: false, events: total, firstBadSeq: at, problem, ...(accepted.length ? { accepted } : {}) };
        accepted.push(acceptance.seq);
        prevHash = acceptance.prevHash;
        expectedSeq = acceptance.seq;
        resumed = true;
        break;
      }
      prevHash = row.hash as string;
      expectedSeq++;
    }
    if (resumed) continue;
  }
  return { ok: true, events: total, firstBadSeq: null, problem: null, ...(accepted.length ? { accepted } : {}) };
}

/** The first log.accepted event after `badSeq` whose record of the events before it still matches them. */
function acceptanceCovering(db: SqliteDb, badSeq: number): { seq: number; prevHash: string } | null {
  const row = db
    .prepare(`SELECT seq, prev_hash, data FROM events WHERE kind = 'log.accepted' AND seq > ? ORDER BY seq LIMIT 1`)
    .get(badSeq);
  if (!row) return null;
  const data = JSON.parse(String(row.data)) as { digest?: string };
  return data.digest === prefixDigest(db, Number(row.seq)) ? { seq: Number(row.seq), prevHash: String(row.prev_hash) } : null;
}

/** SHA-256 over every stored event before `beforeSeq` exactly as stored: what a human accepted, byte for byte. */
export function prefixDigest(db: SqliteDb, beforeSeq: number): string {
  const hash = nodeCrypto().createHash('sha256');
  const page = db.prepare(
    `SELECT seq, prev_hash || char(10) || ${SQL_EVENT_BODY} || char(10) || hash AS row FROM events WHERE seq > ? AND seq < ? ORDER BY seq ${limitSql(PAGE)}`,
  );
  let after = 0;
  for (;;) {
    const rows = page.all(after, beforeSeq);
    if (rows.length === 0) break;
    for (const r of rows) hash.update(`${String(r.row)}\n`);
    after = Number(rows[rows.length - 1]?.seq);
  }
  return hash.digest('hex');
}

/** The careful path: rebuild the body in JavaScript exactly as the writer did. */
export function rehashMatches(db: SqliteDb, seq: number, prevHash: string): boolean {
  const row = db.prepare('SELECT * FROM events WHERE seq = ?').get(seq);
  if (!row) return false;
  const hash = eventHash(prevHash, { ...hashedFieldsOf(row), seq });
  return hash === row.hash;
}

import type { SqliteDb } from '../db/sqliteDb';

/**
 * An anchor is an event someone outside the store remembers: its sequence number and hash. The hash chain proves
 * that no event was changed in place, but not that the newest events are all still there: cutting the log's tail
 * (and rolling the state back to match) leaves a shorter chain that verifies. Checking a remembered anchor catches
 * that, and catches a tail that was cut and then written again.
 */
export interface LogAnchor {
  seq: number;
  hash: string;
}

export type AnchorCheck =
  { ok: true } | { ok: false; problem: 'missing' | 'different'; anchor: LogAnchor; head: LogAnchor | null; message: string };

const ANCHOR = /^(\d{1,15}):([0-9a-f]{64})$/;

/** `SEQ:HASH`, as `log verify` prints it. */
export function formatAnchor(anchor: LogAnchor): string {
  return `${anchor.seq}:${anchor.hash}`;
}

export function parseAnchor(text: string): LogAnchor | null {
  const match = ANCHOR.exec(text.trim().toLowerCase());
  if (!match) return null;
  const seq = Number(match[1]);
  return seq >= 1 ? { seq, hash: match[2] as string } : null;
}

/** The first event's hash: a store's identity, wherever its file or folder goes (null for an empty log). */
export function firstEventHash(db: SqliteDb): string | null {
  const row = db.prepare('SELECT hash FROM events WHERE seq = 1').get();
  return typeof row?.hash === 'string' ? row.hash : null;
}

/** The newest event's number and time (a store's last change), or null for an empty log. */
export function newestEvent(db: SqliteDb): { seq: number; at: string } | null {
  const row = db.prepare('SELECT seq, at FROM events ORDER BY seq DESC LIMIT 1').get();
  return row ? { seq: Number(row.seq), at: String(row.at) } : null;
}

/** The newest event, or null for an empty log. */
export function logHead(db: SqliteDb): LogAnchor | null {
  const row = db.prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1').get();
  return row ? { seq: Number(row.seq), hash: String(row.hash) } : null;
}

/** Is the anchored event still in the log, unchanged? */
export function checkAnchor(db: SqliteDb, anchor: LogAnchor): AnchorCheck {
  const row = db.prepare('SELECT hash FROM events WHERE seq = ?').get(anchor.seq);
  if (row && String(row.hash) === anchor.hash) return { ok: true };
  const head = logHead(db);
  if (!row) {
    const message = `event ${anchor.seq} is gone: the log now ends at event ${head?.seq ?? 0}, so events were cut from its end`;
    return { ok: false, problem: 'missing', anchor, head, message };
  }
  const message = `event ${anchor.seq} is not the event that was anchored: the log was cut and written again from there or before`;
  return { ok: false, problem: 'different', anchor, head, message };
}

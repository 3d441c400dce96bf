import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { firstEventHash } from './events/anchor';
import { join } from 'node:path';
import type { SqliteDb } from './db/sqliteDb';
import type { HumanKey } from './humanKey';
import { hmacSha256 } from './nodeCrypto';

/**
 * How far this machine's key has already proven a store's decisions, so that an audit (before every turn, in VS
 * Code's log witness) checks only the people's events after it: at 100,000 decisions the whole audit took 1.3 s, one
 * HMAC and one JSON parse each. A mark says "every decision through event N, whose hash is H, was proven by this key;
 * there were D of them", and carries its own HMAC under the key, so only a process that holds the key (a person's,
 * never an agent's: hosts deny their agents the key's folder) can make one. It lives beside the key, outside every
 * place an agent may write, one file per store (named by the store's first event).
 *
 * What it does not see, on purpose: an event at or below N edited in place without its hash and every later hash
 * rewritten. That breaks the hash chain, which `log verify`, doctor and VS Code's log witness report, and the edited
 * decision is checked again, alone, wherever loopx acts on it (`requireStandingDecision`). An edit that rewrites the
 * chain changes H, and the mark no longer matches: the next audit checks everything again.
 */
export interface DecisionMark {
  /** Every decision at or below this seq is proven. */
  through: number;
  /** The hash of event `through`: the mark holds only while the log is that log. */
  hash: string;
  /** How many decisions there are at or below `through`. */
  decisions: number;
}

const MARKS_DIR = 'proven';

/** The name of a store's marks file: its first event's hash (null for an empty log). */
export function storeName(db: SqliteDb): string | null {
  const first = firstEventHash(db);
  return first !== null && /^[0-9a-f]{64}$/.test(first) ? first.slice(0, 32) : null;
}

function markMac(key: HumanKey, store: string, mark: DecisionMark): string {
  return hmacSha256(key.key, `loopx decisions proven\n${store}\n${mark.through}\n${mark.hash}\n${mark.decisions}`);
}

/** The store's mark, if there is one, made with this key, and still describing this log; else null (audit it all). */
export function readDecisionMark(db: SqliteDb, key: HumanKey, store: string): DecisionMark | null {
  if (!key.dir) return null;
  let mark: DecisionMark & { mac?: unknown };
  try {
    mark = JSON.parse(readFileSync(join(key.dir, MARKS_DIR, `${store}.json`), 'utf8')) as DecisionMark & { mac?: unknown };
  } catch {
    return null; // none yet, or unreadable: the whole audit runs, as it did before marks
  }
  const { through, hash, decisions, mac } = mark;
  if (!Number.isSafeInteger(through) || through < 1 || typeof hash !== 'string' || !Number.isSafeInteger(decisions)) return null;
  if (decisions < 0 || mac !== markMac(key, store, { through, hash, decisions })) return null;
  const row = db.prepare('SELECT hash FROM events WHERE seq = ?').get(through);
  return row?.hash === hash ? { through, hash, decisions } : null;
}

/** Keeps a mark for the next audit. Never fails the audit: a folder it cannot write only means no mark. */
export function writeDecisionMark(key: HumanKey, store: string, mark: DecisionMark): void {
  if (!key.dir) return;
  try {
    const dir = join(key.dir, MARKS_DIR);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const draft = join(dir, `.${store}.${process.pid}.json`);
    writeFileSync(draft, JSON.stringify({ ...mark, mac: markMac(key, store, mark) }), { mode: 0o600 });
    renameSync(draft, join(dir, `${store}.json`));
  } catch {
    /* a read-only config folder: the next audit checks everything, as it did before marks */
  }
}

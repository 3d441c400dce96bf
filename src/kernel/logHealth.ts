import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RefusedError } from './errors';
import { type SetAsideEvent, setAsideEvents } from './events/setAside';

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
 * The events this store set aside (events/setAside.ts): those its own applier recorded (a team replica's catch-up, a
 * rebuild) and, when `replayed` is given (doctor replays anyway), those replay set aside, which on a local store
 * includes an event appended behind loopx's back that its live tables never applied. Each with its decision.
 */
export function setAsideFound(db: Parameters<typeof setAsideEvents>[0], replayed: readonly SetAsideEvent[] = []): SetAsideEvent[] {
  const found = new Map(setAsideEvents(db).map((e) => [e.seq, e]));
  for (const e of replayed) if (!found.has(e.seq)) found.set(e.seq, { ...e, handled: e.handled ?? liveHandled(db, e.seq) });
  return [...found.values()].sort((a, b) => a.seq - b.seq);
}

function liveHandled(db: Parameters<typeof setAsideEvents>[0], seq: number): SetAsideEvent['handled'] {
  const row = db.prepare('SELECT decided_seq, decided_by, decision, at FROM set_aside_handled WHERE seq = ?').get(seq);
  return row
    ? { by: String(row.decided_by), decision: String(row.decision), at: String(row.at), decidedSeq: Number(row.decided_seq) }
    : null;
}

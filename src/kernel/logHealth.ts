import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kernel } from './kernel';
import { InvalidInputError, RefusedError } from './errors';
import { requireHumanChannel } from './authority';
import { prefixDigest, verifyChain, type VerifyResult } from './events/verify';
import { type UnprovenDecision, acceptanceOfDecisions, auditDecisions } from './decisions';
import { readHumanKey } from './humanKey';
import { type SetAsideEvent, setAsideEvents } from './events/setAside';
import { checkReplay } from './replay';

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
 * `loopx log accept`: a human records that the log is accepted as found from here on: a broken chain, and the
 * decisions this machine's key does not prove (written before proofs, on another machine, or forged), each as it is
 * now. The acceptance is itself a person's decision and carries its proof, so an agent cannot make one that counts.
 */
export function acceptBrokenLog(kernel: Kernel): {
  accepted: boolean;
  seq: number | null;
  firstBadSeq: number | null;
  problem: string | null;
  decisions: UnprovenDecision[];
} {
  requireHumanChannel(kernel.actor, 'to accept a broken event log');
  const look = readHumanKey();
  const result = kernel.write((tx) => {
    const found: VerifyResult = verifyChain(tx.db);
    const { unproven } = auditDecisions(tx.db, look);
    if (found.ok && unproven.length === 0) return { accepted: false, seq: null, firstBadSeq: null, problem: null, decisions: [] };
    const head = Number(tx.db.prepare('SELECT max(seq) AS s FROM events').get()?.s ?? 0);
    const digest = prefixDigest(tx.db, head + 1);
    const decisions = unproven.length ? acceptanceOfDecisions(tx.db, look) : {};
    const event = tx.emit({
      kind: 'log.accepted',
      goalId: null,
      todoId: null,
      data: { firstBadSeq: found.firstBadSeq ?? 0, problem: found.problem ?? '', digest, ...decisions },
    });
    return { accepted: true, seq: event.seq, firstBadSeq: found.firstBadSeq, problem: found.problem, decisions: unproven };
  });
  rmSync(join(kernel.storeDir, BROKEN_MARKER), { force: true });
  return result;
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

/**
 * A person records what they did about an event the store set aside (`loopx log handled SEQ --decision TEXT`): a
 * `log.set_aside_handled` event, a person's decision (HUMAN_ONLY_KINDS; a team store's database refuses it to agents'
 * logins). Doctor and status stop warning about that event; the event itself stays in the log, set aside.
 */
export function markSetAsideHandled(kernel: Kernel, seq: number, decision: string): { seq: number; handledSeq: number } {
  requireHumanChannel(kernel.actor, 'marking a set-aside event handled');
  const words = decision.trim();
  if (!words) throw new InvalidInputError('the decision is empty', 'say what you did about the event: --decision "…"');
  // The replica's own record first; a local store's live tables lack an event appended behind loopx's back, which
  // only replay finds (the rare case: one replay, only then).
  const known = (db: Parameters<typeof setAsideEvents>[0]) =>
    setAsideEvents(db).some((e) => e.seq === seq) || checkReplay(db).setAside.some((e) => e.seq === seq);
  if (!kernel.read(known))
    throw new InvalidInputError(`event ${seq} was not set aside`, 'loopx doctor and loopx status name the events this store set aside');
  // A second decision about the same event replaces the first (a person may change their mind; both stay in the log).
  const event = kernel.write((tx) =>
    tx.emit({ kind: 'log.set_aside_handled', goalId: null, todoId: null, data: { seq, decision: words } }),
  );
  return { seq, handledSeq: event.seq };
}

import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kernel } from './kernel';
import { RefusedError } from './errors';
import { requireHumanChannel } from './authority';
import { prefixDigest, verifyChain, type VerifyResult } from './events/verify';
import { type UnprovenDecision, acceptanceOfDecisions, auditDecisions } from './decisions';
import { readHumanKey } from './humanKey';

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

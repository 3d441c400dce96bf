import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Kernel } from './kernel';
import { InvalidInputError } from './errors';
import { requireHumanChannel } from './authority';
import { prefixDigest, verifyChain, type VerifyResult } from './events/verify';
import { type UnprovenDecision, acceptanceOfDecisions, auditDecisions } from './decisions';
import { readHumanKey } from './humanKey';
import { setAsideEvents } from './events/setAside';
import { checkReplay } from './replay';
import { BROKEN_MARKER } from './logHealth';

/*
 * A person's decisions about the log: accepting it as found, and what they did about an event it set aside. Apart
 * from logHealth.ts (the marker and the refusal the kernel itself checks on every write) because these are operations
 * on an open kernel, and kernel.ts imports logHealth.ts.
 */

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
    const { unproven } = auditDecisions(tx.db, look, { whole: true });
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

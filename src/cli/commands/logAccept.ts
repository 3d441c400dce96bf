import type { Command } from '../command';
import { brokenLog } from '../../kernel/logHealth';
import { acceptBrokenLog } from '../../kernel/logDecisions';
import { verifyChain } from '../../kernel/events/verify';
import { auditDecisions, decisionWords } from '../../kernel/decisions';

export const logAccept: Command = {
  name: ['log', 'accept'],
  summary: "accept a broken event log, or people's decisions this machine's key does not prove, as they are (humans only, at a terminal)",
  description:
    "When log verify, doctor or a write finds the hash chain broken, agents' writes are refused until a human decides:\n" +
    'restore a good backup (loopx restore FILE), or accept the log as found. Accepting records a log.accepted event that\n' +
    'covers every event before it as stored now; a later change to any of them is a break again. You type "accept".\n' +
    "It also takes, as they are, the decisions in a person's name that carry no proof from this machine's key (made\n" +
    'before this loopx, or by a person on another machine): loopx runs no turn, check or hook on them until then. It lists\n' +
    'each one first: accept only those you made. The acceptance carries your proof; an agent cannot make one that counts.',
  humanOnly: true,
  mutates: true,
  run(ctx) {
    const kernel = ctx.kernel();
    const { found, audit } = kernel.read((db) => ({ found: verifyChain(db), audit: auditDecisions(db, undefined, { whole: true }) }));
    if (found.ok && audit.unproven.length === 0) {
      return {
        data: { accepted: false, seq: null, firstBadSeq: null, problem: null, decisions: [] },
        text: "The log verifies and every person's decision in it is proven; there is nothing to accept.",
      };
    }
    const marker = brokenLog(kernel.storeDir);
    const details = found.ok
      ? []
      : [
          `broken at event ${found.firstBadSeq}: ${found.problem}`,
          ...(marker?.foundAt ? [`found ${marker.foundAt}`] : []),
          'events from there on were changed outside loopx; restoring a backup (loopx restore FILE) is the other way out',
        ];
    const decisions = audit.unproven.map((d) => `${decisionWords(d)} at ${d.at}: ${d.why}`);
    if (decisions.length)
      details.push("decisions in a person's name this machine's key does not prove (did you make each one?):", ...decisions);
    const human = ctx.confirmHuman('accept the event log as it is', 'accept', details);
    const result = acceptBrokenLog(kernel.as(human));
    const what = [
      ...(result.firstBadSeq !== null ? [`the log as found (broken at event ${result.firstBadSeq})`] : []),
      ...(result.decisions.length ? [`${result.decisions.length} unproven decision${result.decisions.length === 1 ? '' : 's'}`] : []),
    ];
    return {
      data: result,
      text: `Accepted ${what.join(' and ')}; recorded as event ${result.seq}.${result.firstBadSeq !== null ? ' Agents may write again.' : ''}`,
    };
  },
};

import type { Command } from '../command';
import { acceptBrokenLog, brokenLog } from '../../kernel/logHealth';
import { verifyChain } from '../../kernel/events/verify';

export const logAccept: Command = {
  name: ['log', 'accept'],
  summary: 'accept a broken event log as it is, so agents may write again (humans only, in an interactive terminal)',
  description:
    "When log verify, doctor or a write finds the hash chain broken, agents' writes are refused until a human decides:\n" +
    'restore a good backup (loopx restore FILE), or accept the log as found. Accepting records a log.accepted event that\n' +
    'covers every event before it as stored now; a later change to any of them is a break again. You type "accept".',
  humanOnly: true,
  mutates: true,
  run(ctx) {
    const kernel = ctx.kernel();
    const found = kernel.read((db) => verifyChain(db));
    if (found.ok) {
      return {
        data: { accepted: false, seq: null, firstBadSeq: null, problem: null },
        text: 'The log verifies; there is nothing to accept.',
      };
    }
    const marker = brokenLog(kernel.storeDir);
    const human = ctx.confirmHuman('accept the event log as it is', 'accept', [
      `broken at event ${found.firstBadSeq}: ${found.problem}`,
      ...(marker?.foundAt ? [`found ${marker.foundAt}`] : []),
      'events from there on were changed outside loopx; restoring a backup (loopx restore FILE) is the other way out',
    ]);
    const result = acceptBrokenLog(kernel.as(human));
    return {
      data: result,
      text: `Accepted the log as found (broken at event ${result.firstBadSeq}); recorded as event ${result.seq}. Agents may write again.`,
    };
  },
};

import type { Command } from '../command';
import { verifyChain } from '../../kernel/events/log';

export const logVerify: Command = {
  name: ['log', 'verify'],
  summary: 'check the hash chain of the event log; exit 3 at the first broken event',
  run(ctx) {
    const result = ctx.kernel().read((db) => verifyChain(db));
    const data = { ok: result.ok, events: result.events, firstBadSeq: result.firstBadSeq };
    if (result.ok) return { data, text: `Log intact: ${result.events} events, hash chain verified.` };
    return {
      data,
      text: `Log BROKEN at event ${result.firstBadSeq}: ${result.problem}`,
      failure: {
        code: 'log_broken',
        message: `the event log is broken at event ${result.firstBadSeq}: ${result.problem}`,
        hint: 'events from that one on were altered outside loopx; restore .loopx/ from a backup',
        exitCode: 3,
      },
    };
  },
};

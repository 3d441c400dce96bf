import type { Command } from '../command';
import { setAsideFound } from '../../kernel/logHealth';
import { markSetAsideHandled } from '../../kernel/logDecisions';
import { setAsideWords } from '../../kernel/events/setAside';
import { InvalidInputError } from '../../kernel/errors';

export const logHandled: Command = {
  name: ['log', 'handled'],
  summary: 'record your decision about an event loopx set aside, so doctor and status stop warning (humans only, at a terminal)',
  description:
    "An event loopx could not apply (a duplicate or malformed event written behind its back, e.g. with an agent's\n" +
    'database login) is set aside: the store serves everything else and doctor, status and log verify name it. Once you\n' +
    'have dealt with it (redone what it meant, or found nothing to redo), record what you did. The event stays in the\n' +
    'log, set aside; your decision is a person\'s event (log.set_aside_handled) an agent cannot make. You type "handled".',
  humanOnly: true,
  mutates: true,
  positionals: [{ name: 'SEQ', description: 'the set-aside event’s number, as doctor names it', required: true }],
  flags: { decision: { type: 'string', value: 'TEXT', description: 'what you did about it (required)' } },
  examples: ['loopx log handled 42 --decision "a duplicate an agent inserted; nothing to redo"'],
  run(ctx) {
    const text = ctx.args.positionals[0] ?? '';
    const seq = Number(text);
    if (!/^[1-9][0-9]*$/.test(text) || !Number.isSafeInteger(seq))
      throw new InvalidInputError(`${text || 'SEQ'} is not an event number`, 'pass the number doctor names, e.g. loopx log handled 42');
    const decision = ctx.args.str('decision');
    if (decision === undefined || !decision.trim())
      throw new InvalidInputError('say what you did about the event', 'loopx log handled SEQ --decision "…"');
    const kernel = ctx.kernel();
    const found = kernel.read((db) => setAsideFound(db).find((e) => e.seq === seq));
    const human = ctx.confirmHuman(`mark event ${seq} handled`, 'handled', found ? [setAsideWords(found)] : []);
    const result = markSetAsideHandled(kernel.as(human), seq, decision);
    return { data: result, text: `Event ${seq} marked handled; recorded as event ${result.handledSeq}.` };
  },
};

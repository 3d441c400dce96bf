import type { Command } from '../command';
import { gateLine, list, Painter } from '../format';
import { listGates } from '../../kernel/gates/gateQueries';

export const gateList: Command = {
  name: ['gate', 'list'],
  summary: 'list gates (pending first)',
  flags: { pending: { type: 'boolean', description: 'only gates waiting for a decision' } },
  run(ctx) {
    const gates = ctx.kernel().read((db) => listGates(db, { pending: ctx.args.bool('pending') }));
    const p = new Painter(ctx.color);
    const now = Date.now();
    return { data: gates, text: list(gates, (g) => gateLine(p, g, now), 'No gates.') };
  },
};

import type { Command } from '../command';
import { writeAgentsMd } from '../../runtime/projections/agentsMd';

export const agentsMd: Command = {
  name: ['agents-md'],
  summary: 'write or refresh the managed loopx block in AGENTS.md and CLAUDE.md (text outside it is never touched)',
  run(ctx) {
    const results = writeAgentsMd(ctx.kernel().root);
    return { data: results, text: results.map((r) => `${r.action.padEnd(9)} ${r.file}`).join('\n') };
  },
};

import type { Command } from '../command';
import { addEvidence } from '../../kernel/evidence/evidence';
import { evidenceLine, Painter } from '../format';

export const evidenceAdd: Command = {
  name: ['evidence', 'add'],
  summary: 'record evidence for a todo or a goal (artifacts are hashed)',
  mutates: true,
  storeOnly: true,
  flags: {
    todo: { type: 'string', value: 'T', description: 'the todo it is evidence for' },
    goal: { type: 'string', value: 'G', description: 'or the goal' },
    summary: { type: 'string', value: 'S', required: true, description: 'what was done and how it was checked' },
    kind: { type: 'string', value: 'K', description: 'a short word such as test, review, benchmark (default note)' },
    artifact: { type: 'string', value: 'PATH', repeat: true, description: 'workspace file to record with its SHA-256 (repeatable)' },
  },
  examples: ['loopx evidence add --todo T3 --kind test --summary "48 tests pass" --artifact test-results/junit.xml'],
  run(ctx) {
    const a = ctx.args;
    const evidence = addEvidence(ctx.kernel(), {
      todoId: a.id('todo'),
      goalId: a.id('goal'),
      summary: a.str('summary') as string,
      kind: a.str('kind'),
      artifacts: a.list('artifact'),
    });
    return { data: evidence, text: `Recorded ${evidenceLine(new Painter(ctx.color), evidence, Date.now())}` };
  },
};

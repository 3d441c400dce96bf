import type { Command } from '../command';
import { listEvidence } from '../../kernel/evidence/evidenceQueries';
import { evidenceLine, list, Painter } from '../format';
import { getGoal } from '../../kernel/goals/goalQueries';
import { getTodo } from '../../kernel/todos/todoQueries';

export const evidenceList: Command = {
  name: ['evidence', 'list'],
  summary: 'list evidence, newest first',
  flags: {
    goal: { type: 'string', value: 'G', description: 'only this goal' },
    todo: { type: 'string', value: 'T', description: 'only this todo' },
    limit: { type: 'int', value: 'N', min: 1, max: 100_000, description: 'at most N entries (default 1000)' },
  },
  run(ctx) {
    const a = ctx.args;
    const goalId = a.id('goal');
    const todoId = a.id('todo');
    const limit = a.num('limit');
    const items = ctx.kernel().read((db) => {
      if (goalId) getGoal(db, goalId);
      if (todoId) getTodo(db, todoId);
      return listEvidence(db, { goalId, todoId, limit });
    });
    const p = new Painter(ctx.color);
    const now = Date.now();
    return { data: items, text: list(items, (e) => evidenceLine(p, e, now), 'No evidence yet.') };
  },
};

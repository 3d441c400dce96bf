import type { Command } from '../command';
import { clean, list, oneLine, Painter, relativeTime } from '../format';
import { history as readHistory } from '../../kernel/events/log';
import { getGoal } from '../../kernel/goals/goalQueries';
import { getTodo } from '../../kernel/todos/todoQueries';

/** The channel a human's event came through (`vscode`, `tty`), recorded in its data. */
function channelOf(data: unknown): string | null {
  const channel = (data as { channel?: unknown } | null)?.channel;
  return typeof channel === 'string' ? channel : null;
}

export const history: Command = {
  name: ['history'],
  summary: 'the event log, newest first',
  flags: {
    goal: { type: 'string', value: 'G', description: 'only events of this goal' },
    todo: { type: 'string', value: 'T', description: 'only events of this todo' },
    limit: { type: 'int', value: 'N', min: 1, max: 100_000, description: 'how many (default 50)' },
  },
  run(ctx) {
    const a = ctx.args;
    const goalId = a.id('goal');
    const todoId = a.id('todo');
    const limit = a.num('limit');
    const events = ctx.kernel().read((db) => {
      if (goalId) getGoal(db, goalId);
      if (todoId) getTodo(db, todoId);
      return readHistory(db, { goalId, todoId, limit });
    });
    const p = new Painter(ctx.color);
    const now = Date.now();
    const text = list(
      events,
      (e) =>
        `${p.paint('dim', `#${e.seq}`.padEnd(7))} ${e.kind.padEnd(16)} ${(e.todoId ?? e.goalId ?? '').padEnd(5)} ` +
        `${clean(e.actor)} (${e.actorKind}${channelOf(e.data) ? ` via ${channelOf(e.data)}` : ''}) ${relativeTime(e.at, now)}  ${p.paint('dim', oneLine(JSON.stringify(e.data), 80))}`,
      'No events.',
    );
    return { data: events, text };
  },
};

import type { Command } from '../command';
import { quotaState, shouldRun } from '../../kernel/goals/quotaQueries';
import { nextClaimable, listTodos, todoPage } from '../../kernel/todos/todoQueries';
import { iso } from '../../kernel/time';
import { parseId } from '../../kernel/validate';
import { lean } from '../../protocol/lean';
import { shouldRunReason } from '../../protocol/shouldRunWords';
import { clean, goalLine, list, Painter, todoLine } from '../format';
import { moreLine, type Page, PAGE_FLAGS, pageOf } from '../paging';
import type { SqliteDb } from '../../kernel/db/sqliteDb';
import { getGoal } from '../../kernel/goals/goalQueries';

export const goalShow: Command = {
  name: ['goal', 'show'],
  summary: 'show a goal with its todos, quota and should-run answer',
  readOnly: true,
  description:
    'With --json, a field that is unset or empty is left out (of the goal and of each todo); when the todo list was cut, the envelope says how many more: {"ok":true,"data":{…},"more":N}.',
  positionals: [{ name: 'ID', description: 'goal id, e.g. G1', required: true }],
  flags: { ...PAGE_FLAGS },
  run(ctx) {
    const id = parseId('goal', ctx.args.positionals[0]);
    const page = pageOf(ctx.args);
    const { view, now } = ctx.kernel().read((db, now) => ({ view: goalView(db, id, page, now), now }));
    const { more, ...data } = view;
    const json = lean({ ...data, nextTodo: data.nextTodo && lean(data.nextTodo), todos: data.todos.map(lean) });
    // With --json the text is never shown: an agent's call does not build it.
    return { data: json, more, text: () => goalText(data, more, page, now, ctx.color) };
  },
};

/** The goal with its quota, should-run answer, next todo and a page of its todos (one snapshot). */
function goalView(db: SqliteDb, id: string, page: Page, now: number) {
  const goal = getGoal(db, id);
  const filter = { goalId: goal.id, offset: page.offset };
  const { todos, more } =
    page.limit === undefined
      ? { todos: listTodos(db, iso(now), filter), more: 0 }
      : todoPage(db, iso(now), { ...filter, limit: page.limit });
  const quota = quotaState(db, goal, now);
  const nextTodo = nextClaimable(db, iso(now), goal.id);
  return { ...goal, quota, shouldRun: shouldRun(db, goal, now, { quota, firstReady: nextTodo?.id ?? null }), nextTodo, todos, more };
}
type GoalView = Omit<ReturnType<typeof goalView>, 'more'>;

/** What a person reads: the goal's line and fields, its quota and next todo, then a page of its todos. */
function goalText(data: GoalView, more: number, page: Page, now: number, color: boolean): string {
  const p = new Painter(color);
  const lines = [goalLine(p, data)];
  if (data.objective) lines.push(`  objective: ${clean(data.objective)}`);
  if (data.scope.length) lines.push(`  scope: ${data.scope.map(clean).join(', ')}`);
  if (data.check) lines.push(`  acceptance check: \`${clean(data.check)}\` (todos ship after loopx ran it, passing)`);
  if (data.filePath) lines.push(`  goal file: ${clean(data.filePath)}`);
  if (data.host) lines.push(`  agent: its turns run on ${clean(data.host)} (loopx goal set-host ${data.id} --clear to choose at each run)`);
  if (data.background)
    lines.push(
      `  background: ${clean(data.background.split('\n').find((l) => l.trim()) ?? '')}${data.background.includes('\n') ? ' …' : ''}`,
    );
  const answer = data.shouldRun.run ? 'yes' : `no (${shouldRunReason({ ...data.shouldRun, goalStatus: data.status, ...data.quota })})`;
  lines.push(
    `  quota: ${data.quota.spent}/${data.quota.turnsPerWindow} spent in the last ${data.quota.windowHours} h; should run: ${answer}`,
    `  next: ${data.nextTodo ? `${data.nextTodo.id} ${clean(data.nextTodo.title)}` : 'nothing ready'}`,
    '',
    list(data.todos, (t) => todoLine(p, t, now), 'No todos yet.'),
  );
  if (more) lines.push(moreLine(more, page, `loopx goal show ${data.id}`));
  return lines.join('\n');
}

import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../../test/support/testKit';
import { shipTodo } from '../../todos/todos';
import { claimTodo } from '../../todos/claims';
import { addMonitor } from '../../monitors/monitors';
import { getMonitor } from '../../monitors/monitorQueries';
import { checkReplay } from '../../replay';
import { applyGoalSpec } from './apply';
import type { GoalSpec } from './spec';
import { listTodos } from '../../todos/todoQueries';
import { getGoal } from '../goalQueries';
import { PATH, eventCount, spec, tableSnapshot } from '../../../../test/support/specTestKit';

let s: TestStore;
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

const events = () => eventCount(s);
const snapshot = () => tableSnapshot(s);

describe('apply', () => {
  test('creates the goal and its todos (after the todos they wait for), links the file, and a second apply appends nothing', () => {
    const first = applyGoalSpec(s.kernel, spec({ todos: [...spec().todos].reverse() }), { path: PATH });
    expect(first.plan).toMatchObject({ create: true, changeCount: 3, added: [{ key: 'quoted' }, { key: 'header' }] });
    const goal = getGoal(s.kernel.db, first.goalId as string);
    expect(goal).toMatchObject({ title: 'CSV importer', background: 'Why: customers.', filePath: PATH, policy: { turnsPerWindow: 12 } });
    const todos = listTodos(s.kernel.db, '', { goalId: goal.id });
    expect(todos.map((t) => [t.id, t.key, t.dependsOn])).toEqual([
      ['T1', 'header', []],
      ['T2', 'quoted', ['T1']],
    ]);
    const before = events();
    const second = applyGoalSpec(s.kernel, spec(), { path: PATH });
    expect(second).toMatchObject({ events: 0, plan: { changeCount: 0, relink: false } });
    expect(events()).toBe(before);
    expect(checkReplay(s.kernel.db).ok).toBe(true);
  });

  test('a changed file changes the matched todos by key, as ordinary events; a dry run changes nothing', () => {
    applyGoalSpec(s.kernel, spec(), { path: PATH });
    const edited = spec({
      todos: [
        { key: 'header', title: 'Parse the header row', detail: '', priority: 0, after: [] },
        { key: 'quoted', title: 'Quoted fields', detail: 'RFC 4180', priority: 2, after: [] },
      ],
    });
    const before = snapshot();
    const dry = applyGoalSpec(s.kernel, edited, { path: PATH, dryRun: true });
    expect(dry.plan.changed).toMatchObject([
      {
        key: 'header',
        id: 'T1',
        changes: [
          { field: 'title', to: 'Parse the header row', drift: false },
          { field: 'priority', from: 1, to: 0 },
        ],
      },
      { key: 'quoted', changes: [{ field: 'after', from: ['T1'], to: [] }] },
    ]);
    expect(snapshot()).toEqual(before);
    applyGoalSpec(s.kernel, edited, { path: PATH });
    expect(listTodos(s.kernel.db, '', {}).map((t) => [t.title, t.priority, t.dependsOn])).toEqual([
      ['Parse the header row', 0, []],
      ['Quoted fields', 2, []],
    ]);
    const kinds = s.kernel.db.prepare(`SELECT kind FROM events WHERE kind = 'todo.edited'`).all();
    expect(kinds).toHaveLength(2);
  });

  test('a todo removed from the file is reported, and killed only with prune', () => {
    applyGoalSpec(s.kernel, spec(), { path: PATH });
    const fewer = spec({ todos: [spec().todos[0] as GoalSpec['todos'][number]] });
    const reported = applyGoalSpec(s.kernel, fewer, { path: PATH });
    expect(reported.plan.removed).toEqual([{ key: 'quoted', id: 'T2', title: 'Quoted fields', status: 'open' }]);
    expect(listTodos(s.kernel.db, '', {}).map((t) => t.status)).toEqual(['open', 'open']);
    expect(() => applyGoalSpec(s.as(agent('codex')), fewer, { path: PATH, prune: true })).toThrow(/agent may not prune/);
    applyGoalSpec(s.kernel, fewer, { path: PATH, prune: true });
    expect(listTodos(s.kernel.db, '', {}).map((t) => t.status)).toEqual(['open', 'killed']);
  });

  test("prune kills through todo kill's own write: a monitor waiting on the todo ends with it", () => {
    applyGoalSpec(s.kernel, spec(), { path: PATH });
    addMonitor(s.kernel, { todoId: 'T2', afterSeconds: 600 });
    const fewer = spec({ todos: [spec().todos[0] as GoalSpec['todos'][number]] });
    applyGoalSpec(s.kernel, fewer, { path: PATH, prune: true });
    expect(getMonitor(s.kernel.db, 'M1')).toMatchObject({
      status: 'cancelled',
      result: 'todo killed: removed from the goal file loopx/csv.goal.md',
    });
    const killed = s.kernel.db.prepare(`SELECT data FROM events WHERE kind = 'todo.killed'`).get();
    expect(JSON.parse(String(killed?.data))).toMatchObject({ previousOwner: null, cancelledGates: [] });
    expect(checkReplay(s.kernel.db).ok).toBe(true);
  });

  test('drift: a change made in the store after the apply is labelled as drift; applying the file puts the file value back', () => {
    applyGoalSpec(s.kernel, spec(), { path: PATH });
    s.kernel.write((tx) => tx.emit({ kind: 'todo.edited', goalId: 'G1', todoId: 'T1', data: { priority: 3 } }));
    const { plan } = applyGoalSpec(s.kernel, spec(), { path: PATH, dryRun: true });
    expect(plan.changed).toMatchObject([{ key: 'header', changes: [{ field: 'priority', from: 3, to: 1, drift: true }] }]);
    applyGoalSpec(s.kernel, spec(), { path: PATH });
    expect(listTodos(s.kernel.db, '', {})[0]?.priority).toBe(1);
  });

  test('refusals leave the store unchanged: a cycle through the store, quota by an agent, an unknown id', () => {
    applyGoalSpec(s.kernel, spec(), { path: PATH });
    const before = snapshot();
    const cyclic = spec({
      todos: [
        { key: 'header', title: 'Parse header', detail: '', priority: 1, after: ['T2'] },
        spec().todos[1] as GoalSpec['todos'][number],
      ],
    });
    expect(() => applyGoalSpec(s.kernel, cyclic, { path: PATH })).toThrow(expect.objectContaining({ code: 'dependency_cycle' }));
    expect(() => applyGoalSpec(s.as(agent('codex')), spec({ quota: { turnsPerWindow: 99 } }), { path: PATH })).toThrow(
      expect.objectContaining({ code: 'not_allowed' }),
    );
    expect(() =>
      applyGoalSpec(s.kernel, spec({ todos: [{ key: 'x', id: 'T99', title: 'x', detail: '', priority: 2, after: [] }] }), { path: PATH }),
    ).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(snapshot()).toEqual(before);
    // An agent may add and change todos.
    const more = spec({ todos: [...spec().todos, { key: 'docs', title: 'Docs', detail: '', priority: 3, after: [] }] });
    expect(applyGoalSpec(s.as(agent('codex')), more, { path: PATH }).plan.added).toHaveLength(1);
  });

  test('a shipped todo the file would change is skipped, not rewritten', () => {
    applyGoalSpec(s.kernel, spec(), { path: PATH });
    const codex = s.as(agent('codex'));
    claimTodo(codex, 'T1');
    shipTodo(codex, 'T1', { evidence: 'done' });
    const { plan } = applyGoalSpec(
      s.kernel,
      spec({
        todos: [{ key: 'header', title: 'Renamed', detail: '', priority: 1, after: [] }, spec().todos[1] as GoalSpec['todos'][number]],
      }),
      { path: PATH },
    );
    expect(plan.skipped).toMatchObject([{ key: 'header', status: 'shipped' }]);
    expect(listTodos(s.kernel.db, '', {})[0]?.title).toBe('Parse header');
  });
});

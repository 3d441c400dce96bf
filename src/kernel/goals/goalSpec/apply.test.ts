import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { agent, bareHuman, human, makeStore, type TestStore } from '../../testKit';
import { createGoal } from '../goals';
import { addTodo, shipTodo } from '../../todos/todos';
import { claimTodo } from '../../todos/claims';
import { askGate } from '../../gates/gates';
import { addMonitor } from '../../monitors/monitors';
import { getMonitor } from '../../monitors/monitorQueries';
import { checkReplay } from '../../replay';
import { LoopxError } from '../../errors';
import { applyGoalSpec } from './apply';
import { exportGoalSpec } from './export';
import type { GoalSpec } from './spec';
import { listTodos } from '../../todos/todoQueries';
import { getGoal } from '../goalQueries';

let s: TestStore;
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

const PATH = 'loopx/csv.goal.md';
const spec = (over: Partial<GoalSpec> = {}): GoalSpec => ({
  title: 'CSV importer',
  objective: 'fixtures import',
  scope: ['src/**'],
  quota: { turnsPerWindow: 12 },
  background: 'Why: customers.',
  todos: [
    { key: 'header', title: 'Parse header', detail: '', priority: 1, after: [] },
    { key: 'quoted', title: 'Quoted fields', detail: 'RFC 4180', priority: 2, after: ['header'] },
  ],
  ...over,
});
const events = () => Number(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n);
const snapshot = () =>
  s.kernel.db.prepare('SELECT * FROM todos ORDER BY num').all().concat(s.kernel.db.prepare('SELECT * FROM goals').all());

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

describe('checks, recurrence and authority', () => {
  const withChecks = (): GoalSpec =>
    spec({
      check: 'npm test',
      todos: [
        { ...(spec().todos[0] as GoalSpec['todos'][number]), check: 'npm test -- header' },
        spec().todos[1] as GoalSpec['todos'][number],
      ],
    });

  test("a person through a channel sets the goal's and a todo's check; the events record the channel", () => {
    const { goalId } = applyGoalSpec(s.as(human), withChecks(), { path: PATH });
    expect(getGoal(s.kernel.db, goalId as string)).toMatchObject({ check: 'npm test', status: 'active' });
    expect(listTodos(s.kernel.db, '', {}).map((t) => [t.key, t.check])).toEqual([
      ['header', 'npm test -- header'],
      ['quoted', null],
    ]);
    expect(applyGoalSpec(s.as(human), withChecks(), { path: PATH }).events).toBe(0);
    const changed = applyGoalSpec(s.as(human), { ...withChecks(), check: null }, { path: PATH });
    expect(changed.plan.goalChanges).toEqual([{ field: 'check', from: 'npm test', to: null, drift: false }]);
    const row = s.kernel.db.prepare("SELECT data FROM events WHERE kind = 'goal.check_set' ORDER BY seq DESC").get();
    expect(JSON.parse(String(row?.data))).toEqual({ check: null, from: 'npm test', channel: 'vscode' });
    expect(getGoal(s.kernel.db, goalId as string).check).toBeNull();
    expect(checkReplay(s.kernel.db).ok).toBe(true);
  });

  test('an apply that would set or change a check is refused as a whole for an agent and for a human without a channel', () => {
    applyGoalSpec(s.as(human), spec(), { path: PATH });
    const before = snapshot();
    const more = { ...withChecks(), todos: [...withChecks().todos, { key: 'docs', title: 'Docs', detail: '', priority: 3, after: [] }] };
    expect(() => applyGoalSpec(s.as(agent('codex')), more, { path: PATH })).toThrow(
      expect.objectContaining({
        code: 'not_allowed',
        message: expect.stringMatching(
          /^a goal file applied by an agent may not set acceptance checks \(the file would change 2: the check of goal G1, the check of todo T1 \(header\)\); nothing was applied$/,
        ),
      }),
    );
    expect(() => applyGoalSpec(s.as(bareHuman), more, { path: PATH })).toThrow(expect.objectContaining({ code: 'human_channel_required' }));
    // A dry run shows such a person what the apply would set (an agent's is refused, as for quota).
    expect(applyGoalSpec(s.as(bareHuman), more, { path: PATH, dryRun: true }).plan.goalChanges).toEqual([
      { field: 'check', from: null, to: 'npm test', drift: false },
    ]);
    const newTodoWithCheck = spec({
      todos: [...spec().todos, { key: 'docs', title: 'Docs', detail: '', priority: 3, after: [], check: 'true' }],
    });
    expect(() => applyGoalSpec(s.as(agent('codex')), newTodoWithCheck, { path: PATH })).toThrow(
      expect.objectContaining({ code: 'not_allowed' }),
    );
    expect(() => applyGoalSpec(s.as(agent('codex')), spec({ check: 'true' }), { path: 'loopx/other.goal.md' })).toThrow(
      expect.objectContaining({ code: 'not_allowed' }),
    );
    expect(snapshot()).toEqual(before);
    // A file that says what the store already has sets nothing: an agent may apply it.
    applyGoalSpec(s.as(human), withChecks(), { path: PATH });
    expect(applyGoalSpec(s.as(agent('codex')), more, { path: PATH }).plan.added).toMatchObject([{ key: 'docs' }]);
  });

  test('pruning a todo with a pending gate needs a human channel, as todo kill does; without one the apply is refused whole', () => {
    applyGoalSpec(s.as(human), spec(), { path: PATH });
    askGate(s.as(agent('codex')), { todoId: 'T2', question: 'Keep RFC 4180 quirks?' });
    const before = snapshot();
    const without = spec({ title: 'Renamed', todos: [spec().todos[0] as GoalSpec['todos'][number]] });
    expect(() => applyGoalSpec(s.as(bareHuman), without, { path: PATH, prune: true })).toThrow(
      expect.objectContaining({ code: 'human_channel_required' }),
    );
    expect(snapshot()).toEqual(before);
    expect(applyGoalSpec(s.as(human), without, { path: PATH, prune: true }).plan.removed).toMatchObject([{ id: 'T2' }]);
    expect(listTodos(s.kernel.db, '', {}).map((t) => t.status)).toEqual(['open', 'killed']);
  });

  test("a goal an agent's (or a channel-less) apply creates starts paused, like goal create", () => {
    expect(
      getGoal(s.kernel.db, applyGoalSpec(s.as(agent('codex')), spec({ quota: {} }), { path: 'a.goal.md' }).goalId as string).status,
    ).toBe('paused');
    expect(getGoal(s.kernel.db, applyGoalSpec(s.as(bareHuman), spec(), { path: 'b.goal.md' }).goalId as string).status).toBe('paused');
    expect(getGoal(s.kernel.db, applyGoalSpec(s.as(human), spec(), { path: 'c.goal.md' }).goalId as string).status).toBe('active');
  });

  test('a recurring todo from a file is a series as with todo add --every; the file cannot change its recurrence', () => {
    const daily = spec({
      todos: [
        { key: 'report', title: 'Daily report', detail: '', priority: 2, after: [], recurrence: { every: 86400, at: '09:00', tz: 'UTC' } },
      ],
    });
    applyGoalSpec(s.as(human), daily, { path: PATH });
    const [todo] = listTodos(s.kernel.db, '', {});
    expect(todo).toMatchObject({ key: 'report', recurrence: { every: 86400, at: '09:00', tz: 'UTC', text: 'daily at 09:00 (UTC)' } });
    expect(todo?.readyAt).not.toBeNull();
    expect(applyGoalSpec(s.as(human), daily, { path: PATH }).events).toBe(0);
    const before = snapshot();
    const hourly = spec({ todos: [{ ...(daily.todos[0] as GoalSpec['todos'][number]), recurrence: { every: 3600 } }] });
    expect(() => applyGoalSpec(s.as(human), hourly, { path: PATH })).toThrow(
      expect.objectContaining({
        code: 'invalid_input',
        message:
          "todo report (T1) recurs daily at 09:00 (UTC) in the store, but the file says every 1h: a goal file cannot change an existing todo's recurrence",
      }),
    );
    expect(() =>
      applyGoalSpec(
        s.as(human),
        spec({ todos: [{ key: 'x', title: 'x', detail: '', priority: 2, after: [], recurrence: { cron: '0 25 * * *' } }] }),
        { path: PATH },
      ),
    ).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(snapshot()).toEqual(before);
  });
});

describe('quota ranges: the rules of goal create', () => {
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return e instanceof LoopxError ? [e.code, e.message] : e;
    }
    return 'not refused';
  };

  test('a new goal with a value goal create refuses is refused with its words, dry run or not, and nothing changes', () => {
    const cases: [Partial<GoalSpec['quota']>, Parameters<typeof createGoal>[1]][] = [
      [{ cooldownSeconds: 60 * 86400 }, { title: 't', cooldownSeconds: 60 * 86400 }],
      [{ turnsPerWindow: 100_001 }, { title: 't', turnsPerWindow: 100_001 }],
      [{ maxConcurrent: 0 }, { title: 't', maxConcurrent: 0 }],
      [{ windowHours: 9000 }, { title: 't', windowHours: 9000 }],
    ];
    const before = snapshot();
    for (const [quota, input] of cases) {
      const expected = refusal(() => createGoal(s.as(human), input)) as [string, string];
      expect(expected[0]).toBe('invalid_input');
      expect(refusal(() => applyGoalSpec(s.as(human), spec({ quota }), { path: PATH }))).toEqual(expected);
      expect(refusal(() => applyGoalSpec(s.as(human), spec({ quota }), { path: PATH, dryRun: true }))).toEqual(expected);
    }
    expect(snapshot()).toEqual(before);
  });

  test("a file changing an existing goal's quota out of range is refused the same way, and nothing changes", () => {
    applyGoalSpec(s.as(human), spec({ quota: { cooldownSeconds: 600 } }), { path: PATH });
    const before = snapshot();
    const count = events();
    expect(refusal(() => applyGoalSpec(s.as(human), spec({ quota: { cooldownSeconds: 5_184_000 } }), { path: PATH }))).toEqual([
      'invalid_input',
      'cooldown must be a whole number from 0 to 2592000',
    ]);
    expect(snapshot()).toEqual(before);
    expect(events()).toBe(count);
    // At the edge of the range: applied.
    applyGoalSpec(s.as(human), spec({ quota: { cooldownSeconds: 30 * 86400 } }), { path: PATH });
    expect(getGoal(s.kernel.db, 'G1').policy.cooldownSeconds).toBe(2_592_000);
  });
});

describe('usage caps in a goal file: a cap the file names is managed, one it leaves out is not', () => {
  const caps = () => {
    const { tokensPerWindow, dollarsPerWindow } = getGoal(s.kernel.db, 'G1').policy;
    return { tokensPerWindow, dollarsPerWindow };
  };
  const withCaps = (quota: GoalSpec['quota']) => spec({ quota: { turnsPerWindow: 12, ...quota } });

  test('a new goal gets the caps the file names; a second apply appends nothing; export writes them back', () => {
    const first = applyGoalSpec(s.as(human), withCaps({ tokensPerWindow: 2_000_000, dollarsPerWindow: 10 }), { path: PATH });
    expect(first.plan.create).toBe(true);
    expect(caps()).toEqual({ tokensPerWindow: 2_000_000, dollarsPerWindow: 10 });
    const count = events();
    expect(applyGoalSpec(s.as(human), withCaps({ tokensPerWindow: 2_000_000, dollarsPerWindow: 10 }), { path: PATH }).events).toBe(0);
    expect(events()).toBe(count);
    expect(exportGoalSpec(s.kernel.db, 'G1').quota).toMatchObject({ tokensPerWindow: 2_000_000, dollarsPerWindow: 10 });
  });

  test('a file that does not mention caps leaves the ones goal create set; naming one changes it; null clears it', () => {
    createGoal(s.as(human), {
      title: 'CSV importer',
      objective: 'fixtures import',
      scope: ['src/**'],
      tokensPerWindow: 500_000,
      dollarsPerWindow: 5,
    });
    expect(applyGoalSpec(s.as(human), spec({ goal: 'G1' }), { path: PATH }).goalId).toBe('G1');
    expect(caps()).toEqual({ tokensPerWindow: 500_000, dollarsPerWindow: 5 });
    expect(applyGoalSpec(s.as(human), spec(), { path: PATH }).events).toBe(0);

    const raised = applyGoalSpec(s.as(human), withCaps({ dollarsPerWindow: 8 }), { path: PATH });
    expect(raised.plan.goalChanges).toEqual([{ field: 'quota.dollarsPerWindow', from: 5, to: 8, drift: false }]);
    expect(caps()).toEqual({ tokensPerWindow: 500_000, dollarsPerWindow: 8 });

    applyGoalSpec(s.as(human), withCaps({ dollarsPerWindow: 8, tokensPerWindow: null }), { path: PATH });
    expect(caps()).toEqual({ tokensPerWindow: null, dollarsPerWindow: 8 });
    expect(applyGoalSpec(s.as(human), withCaps({ dollarsPerWindow: 8, tokensPerWindow: null }), { path: PATH }).events).toBe(0);
    expect(checkReplay(s.kernel.db).ok).toBe(true);
  });

  test('a cap changed in the store after the apply is drift; applying the file puts its cap back', () => {
    applyGoalSpec(s.as(human), withCaps({ dollarsPerWindow: 10 }), { path: PATH });
    s.kernel.write((tx) => tx.emit({ kind: 'goal.edited', goalId: 'G1', todoId: null, data: { dollarsPerWindow: 25 } }));
    const { plan } = applyGoalSpec(s.as(human), withCaps({ dollarsPerWindow: 10 }), { path: PATH, dryRun: true });
    expect(plan.goalChanges).toEqual([{ field: 'quota.dollarsPerWindow', from: 25, to: 10, drift: true }]);
    applyGoalSpec(s.as(human), withCaps({ dollarsPerWindow: 10 }), { path: PATH });
    expect(caps().dollarsPerWindow).toBe(10);
  });

  test('dollars are kept to the cent as goal create keeps them, so the same file applies once', () => {
    applyGoalSpec(s.as(human), withCaps({ dollarsPerWindow: 2.499 }), { path: PATH });
    expect(caps().dollarsPerWindow).toBe(2.5);
    expect(applyGoalSpec(s.as(human), withCaps({ dollarsPerWindow: 2.499 }), { path: PATH }).events).toBe(0);
  });

  test('caps goal create refuses are refused with its words, new goal or not, and nothing changes; an agent may not set them', () => {
    const refusal = (fn: () => unknown): unknown[] => {
      try {
        fn();
      } catch (e) {
        return e instanceof LoopxError ? [e.code, e.message] : [e];
      }
      return ['not refused'];
    };
    const bad: [GoalSpec['quota'], Parameters<typeof createGoal>[1]][] = [
      [{ tokensPerWindow: -5 }, { title: 't', tokensPerWindow: -5 }],
      [{ tokensPerWindow: 1.5 }, { title: 't', tokensPerWindow: 1.5 }],
      [{ tokensPerWindow: 1e13 }, { title: 't', tokensPerWindow: 1e13 }],
      [{ dollarsPerWindow: 0 }, { title: 't', dollarsPerWindow: 0 }],
      [{ dollarsPerWindow: Number.NaN }, { title: 't', dollarsPerWindow: Number.NaN }],
      [{ dollarsPerWindow: 5_000_000 }, { title: 't', dollarsPerWindow: 5_000_000 }],
    ];
    for (const [quota, input] of bad) {
      const expected = refusal(() => createGoal(s.as(human), input)) as [string, string];
      expect(expected[0]).toBe('invalid_input');
      expect(refusal(() => applyGoalSpec(s.as(human), withCaps(quota), { path: PATH }))).toEqual(expected);
    }
    expect(events()).toBe(1); // store.initialized only
    expect(refusal(() => applyGoalSpec(s.as(agent('codex')), withCaps({ dollarsPerWindow: 10 }), { path: PATH }))[0]).toBe('not_allowed');
    applyGoalSpec(s.as(human), withCaps({ dollarsPerWindow: 10 }), { path: PATH });
    const before = snapshot();
    for (const quota of bad) expect(refusal(() => applyGoalSpec(s.as(human), withCaps(quota[0]), { path: PATH }))[0]).toBe('invalid_input');
    // Raising (or removing) a cap spends more: a person's decision, as any quota change.
    expect(refusal(() => applyGoalSpec(s.as(agent('codex')), withCaps({ dollarsPerWindow: null }), { path: PATH }))[0]).toBe('not_allowed');
    expect(snapshot()).toEqual(before);
  });
});

describe('export', () => {
  test('a goal made without a file exports a spec whose apply changes nothing but the link', () => {
    const goal = createGoal(s.kernel, {
      title: 'Old goal',
      objective: 'o',
      scope: ['a/**'],
      turnsPerWindow: 3,
      windowHours: 6,
      cooldownSeconds: 60,
    });
    addTodo(s.kernel, { goalId: goal.id, title: 'First thing' });
    addTodo(s.kernel, { goalId: goal.id, title: 'First thing', priority: 0, dependsOn: ['T1'] });
    const exported = exportGoalSpec(s.kernel.db, goal.id);
    expect(exported.todos.map((t) => [t.key, t.id, t.after])).toEqual([
      ['first-thing', 'T1', []],
      ['first-thing-2', 'T2', ['first-thing']],
    ]);
    const before = snapshot();
    const result = applyGoalSpec(s.kernel, exported, { path: 'loopx/old-goal.goal.md' });
    expect(result.plan.changeCount).toBe(0);
    expect(result.events).toBe(1); // the link: goal.file_applied
    const strip = (rows: unknown[]) =>
      rows.map((r) => ({ ...(r as object), key: undefined, file_path: undefined, file_applied: undefined }));
    expect(strip(snapshot())).toEqual(strip(before));
  });
});

/** Random goals built through ordinary operations; export, then apply, is a no-op; apply twice appends nothing. */
describe('properties', () => {
  const arbitraryTodo = fc.record({
    title: fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,20}$/),
    priority: fc.nat(3),
    dep: fc.option(fc.nat(20)),
    check: fc.option(fc.constantFrom('npm test', 'make check')),
    recurrence: fc.option(
      fc.constantFrom({ every: 3600 }, { every: 86400, at: '09:00', tz: 'Europe/Berlin' }, { cron: '0 9 * * 1-5', tz: 'UTC' }),
    ),
  });
  test('export then apply changes no goal or todo field; a second apply appends no event', () => {
    fc.assert(
      fc.property(
        fc.array(arbitraryTodo, { maxLength: 12 }),
        fc.nat(3),
        fc.integer({ min: 1, max: 48 }),
        fc.option(fc.constant('npm test')),
        (todos, ships, hours, goalCheck) => {
          const store = makeStore();
          try {
            const goal = createGoal(store.kernel.as(human), { title: 'g', windowHours: hours, ...(goalCheck ? { check: goalCheck } : {}) });
            todos.forEach((t, i) =>
              addTodo(store.kernel.as(human), {
                goalId: goal.id,
                title: t.title,
                priority: t.priority,
                dependsOn: t.dep !== null && i > 0 ? [`T${(t.dep % i) + 1}`] : [],
                ...(t.check ? { check: t.check } : {}),
                ...(t.recurrence ? { recurrence: t.recurrence } : {}),
              }),
            );
            const codex = store.as(agent('codex'));
            for (let i = 0; i < Math.min(ships, todos.length); i++) {
              try {
                claimTodo(codex, `T${i + 1}`);
                shipTodo(codex, `T${i + 1}`, { evidence: 'e' });
              } catch (e) {
                if (!(e instanceof LoopxError)) throw e; // not ready: fine
              }
            }
            const first = applyGoalSpec(store.kernel.as(human), exportGoalSpec(store.kernel.db, goal.id), { path: 'g.goal.md' });
            expect(first.plan.changeCount).toBe(0);
            const count = Number(store.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n);
            const again = applyGoalSpec(store.kernel.as(human), exportGoalSpec(store.kernel.db, goal.id), { path: 'g.goal.md' });
            expect(again.events).toBe(0);
            expect(Number(store.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n)).toBe(count);
            expect(checkReplay(store.kernel.db).ok).toBe(true);
          } finally {
            store.dispose();
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("a goal file's allowedChecks: the checks agents may set unasked, a person's decision", () => {
  test('a person applies them (through a channel), an agent may not; export writes them; a second apply appends nothing', () => {
    const allowed = spec({ allowedChecks: ['gh run view *'] });
    expect(() => applyGoalSpec(s.as(agent('codex')), allowed, { path: PATH })).toThrow(/a goal file applied by an agent may not/);
    expect(() => applyGoalSpec(s.as(bareHuman), allowed, { path: PATH })).toThrow(
      expect.objectContaining({ code: 'human_channel_required' }),
    );
    const first = applyGoalSpec(s.as(human), allowed, { path: PATH });
    expect(getGoal(s.kernel.db, first.goalId as string).allowedChecks).toEqual(['gh run view *']);
    expect(applyGoalSpec(s.as(human), allowed, { path: PATH }).events).toBe(0);
    expect(exportGoalSpec(s.kernel.db, first.goalId as string).allowedChecks).toEqual(['gh run view *']);
    const widened = applyGoalSpec(s.as(human), spec({ allowedChecks: ['gh run view *', 'test -f *'] }), { path: PATH });
    expect(widened.plan.goalChanges).toEqual([
      expect.objectContaining({ field: 'allowedChecks', from: ['gh run view *'], to: ['gh run view *', 'test -f *'] }),
    ]);
    expect(() => applyGoalSpec(s.as(human), spec({ allowedChecks: ['*'] }), { path: PATH })).toThrow(/would allow any command/);
    expect(checkReplay(s.kernel.db)).toMatchObject({ ok: true });
  });
});

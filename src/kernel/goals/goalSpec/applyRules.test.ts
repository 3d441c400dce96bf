import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, bareHuman, human, makeStore, type TestStore } from '../../../../test/support/testKit';
import { askGate } from '../../gates/gates';
import { checkReplay } from '../../replay';
import { applyGoalSpec } from './apply';
import { exportGoalSpec } from './export';
import type { GoalSpec } from './spec';
import { listTodos } from '../../todos/todoQueries';
import { getGoal } from '../goalQueries';
import { PATH, spec, tableSnapshot } from '../../../../test/support/specTestKit';

/** A person's decision carries a proof under this machine's key (decisions.ts). */
const PROOF = { key: expect.stringMatching(/^[0-9a-f]{16}$/), mac: expect.stringMatching(/^[0-9a-f]{64}$/) };

let s: TestStore;
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

const snapshot = () => tableSnapshot(s);

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
    expect(JSON.parse(String(row?.data))).toEqual({ check: null, from: 'npm test', channel: 'vscode', proof: PROOF });
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

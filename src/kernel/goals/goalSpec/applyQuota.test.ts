import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, human, makeStore, type TestStore } from '../../../../test/support/testKit';
import { createGoal } from '../goals';
import { checkReplay } from '../../replay';
import { LoopxError } from '../../errors';
import { applyGoalSpec } from './apply';
import { exportGoalSpec } from './export';
import type { GoalSpec } from './spec';
import { getGoal } from '../goalQueries';
import { PATH, eventCount, refusal, spec, tableSnapshot } from '../../../../test/support/specTestKit';

let s: TestStore;
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

const events = () => eventCount(s);
const snapshot = () => tableSnapshot(s);

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

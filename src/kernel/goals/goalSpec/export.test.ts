import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { agent, human, makeStore, propertyRuns, type TestStore } from '../../../../test/support/testKit';
import { createGoal } from '../goals';
import { addTodo, shipTodo } from '../../todos/todos';
import { claimTodo } from '../../todos/claims';
import { checkReplay } from '../../replay';
import { LoopxError } from '../../errors';
import { applyGoalSpec } from './apply';
import { exportGoalSpec } from './export';
import { tableSnapshot } from '../../../../test/support/specTestKit';

let s: TestStore;
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

const snapshot = () => tableSnapshot(s);

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
      { numRuns: propertyRuns(40) },
    );
  });
});

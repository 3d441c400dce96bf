import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { human, makeStore } from '../../test/support/testKit';
import { createGoal } from '../kernel/goals/goals';
import { addTodo } from '../kernel/todos/todos';
import { applyGoalSpec } from '../kernel/goals/goalSpec/apply';
import { exportGoalSpec } from '../kernel/goals/goalSpec/export';
import { setGoalWorktree } from '../kernel/worktrees/worktreeSetting';
import { formatGoalFile } from './format';
import { parseGoalFile } from './parse';

/** Through the file itself: export, write the text, parse it back, apply it: nothing changes but the link. */
describe('a goal file written by export', () => {
  test('parses without a diagnostic and applies as a no-op, checks, recurrences and usage caps included', () => {
    const todo = fc.record({
      title: fc.stringMatching(/^[A-Za-z#:'"-][A-Za-z #:'"-]{0,20}$/).filter((t) => t.trim() === t && t.length > 0),
      detail: fc.constantFrom('', 'one line', 'two\nlines', 'a: colon'),
      priority: fc.nat(3),
      dep: fc.option(fc.nat(20)),
      check: fc.option(fc.constantFrom('npm test', 'node -e "process.exit(0)"')),
      recurrence: fc.option(
        fc.constantFrom({ every: 600 }, { every: 172800, at: '07:30', tz: 'Asia/Tokyo' }, { cron: '*/15 9-17 * * 1-5', tz: 'UTC' }),
      ),
    });
    fc.assert(
      fc.property(
        fc.array(todo, { maxLength: 10 }),
        fc.option(fc.constant('make check')),
        fc.constantFrom('', 'Why.\n\n- a list'),
        fc.constantFrom({}, { tokensPerWindow: 2_000_000 }, { dollarsPerWindow: 12.5 }, { tokensPerWindow: 1, dollarsPerWindow: 0.01 }),
        (todos, goalCheck, background, caps) => {
          const store = makeStore();
          try {
            const kernel = store.kernel.as(human);
            const goal = createGoal(kernel, {
              title: 'A goal',
              objective: 'done',
              scope: ['src/**'],
              cooldownSeconds: 600,
              ...caps,
              ...(goalCheck ? { check: goalCheck } : {}),
            });
            if (background) kernel.write((tx) => tx.emit({ kind: 'goal.edited', goalId: goal.id, todoId: null, data: { background } }));
            todos.forEach((t, i) =>
              addTodo(kernel, {
                goalId: goal.id,
                title: t.title,
                detail: t.detail,
                priority: t.priority,
                dependsOn: t.dep !== null && i > 0 ? [`T${(t.dep % i) + 1}`] : [],
                ...(t.check ? { check: t.check } : {}),
                ...(t.recurrence ? { recurrence: t.recurrence } : {}),
              }),
            );
            const text = formatGoalFile(exportGoalSpec(kernel.db, goal.id));
            const parsed = parseGoalFile(text);
            expect(parsed.diagnostics).toEqual([]);
            // A goal's caps are in its file (`tokens:`, `dollars:`); a goal without caps leaves them out.
            expect(parsed.spec?.quota).toMatchObject(caps);
            expect(/^ {2}(tokens|dollars):/m.test(text)).toBe(Object.keys(caps).length > 0);
            const result = applyGoalSpec(kernel, parsed.spec as NonNullable<typeof parsed.spec>, { path: 'loopx/a-goal.goal.md' });
            expect([result.plan.changeCount, result.events]).toEqual([0, 1]);
            expect(
              applyGoalSpec(kernel, parseGoalFile(text).spec as NonNullable<typeof parsed.spec>, { path: 'loopx/a-goal.goal.md' }).events,
            ).toBe(0);
          } finally {
            store.dispose();
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  test('a goal with worktrees and a setup command: export writes both keys, and applying the file changes nothing', () => {
    const store = makeStore();
    try {
      const git = (...args: string[]) =>
        execFileSync('git', args, {
          cwd: store.kernel.root,
          env: { ...process.env, GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@x', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@x' },
        });
      git('init', '-q', '-b', 'main');
      git('commit', '-q', '--allow-empty', '-m', 'start');
      const kernel = store.kernel.as(human);
      const goal = createGoal(kernel, { title: 'A goal', worktree: 'main' });
      setGoalWorktree(kernel, goal.id, undefined, 'npm ci && npm run build');
      const text = formatGoalFile(exportGoalSpec(kernel.db, goal.id));
      expect(text).toContain('worktree: main\nworktreeSetup: npm ci && npm run build\n');
      const parsed = parseGoalFile(text);
      expect(parsed.diagnostics).toEqual([]);
      const result = applyGoalSpec(kernel, parsed.spec as NonNullable<typeof parsed.spec>, { path: 'loopx/a-goal.goal.md' });
      expect([result.plan.changeCount, result.events]).toEqual([0, 1]); // the link only
    } finally {
      store.dispose();
    }
  });
});

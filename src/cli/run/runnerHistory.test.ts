import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Executed, recordStatements } from '../../../test/support/sqlRecorder';
import { Kernel } from '../../kernel/kernel';
import { createGoal } from '../../kernel/goals/goals';
import { addTodo } from '../../kernel/todos/todos';
import { shippingRunner } from '../../../test/support/shippingRunner';

/**
 * A runner left alone for a night must not slow down as its goal's history grows (issue 39's soak: a runner's own CPU
 * per turn went from 8 ms at its 100th turn to 18 ms at its 3,000th, `npm run bench:memory`, because the queries it
 * runs many times a turn walked every turn and every spend the goal ever had). Time is not asserted here: what SQLite
 * plans to visit is. Every statement the runner's connection runs over a few turns is explained, and no step may walk
 * a history table (turns, quota spends, events) by its goal alone. SQLite plans without statistics here (loopx runs no
 * ANALYZE), so the plans a small store gets are the ones a big one gets.
 */

/** Walks all of a goal's rows in a history table: its index is constrained by the goal and nothing else. */
const WALKS_GOAL_HISTORY = /^(?:SEARCH|SCAN) \w+ USING (?:COVERING )?INDEX (\w+) \(goal_id=\?\)$/;
/** Indexes whose rows stay few whatever the history: the open turns (bounded by the goal's slots). */
const BOUNDED_INDEXES = new Set(['turns_open_goal']);
/** `SELECT max(c) … WHERE goal_id = ?` through an index on (goal_id, c): SQLite reads the one row at the range's end. */
const ONE_ROW_AGGREGATE = /^\s*SELECT (?:max|min)\(\w+\)(?: AS \w+)? FROM \w+ WHERE goal_id = \?\s*$/i;
/** With these, a statement that asks for the newest few in index order stops after them (every row qualifies). */
const EVERY_ROW_QUALIFIES = new Set(['turns_usage_goal']);

let root: string;
let kernel: Kernel;
const executed: Executed[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'loopx-runner-history-'));
  kernel = Kernel.init(root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } }).kernel;
  const goalId = createGoal(kernel, { title: 'history', turnsPerWindow: 1000, maxConcurrent: 1 }).id;
  for (let i = 0; i < 12; i++) addTodo(kernel, { goalId, title: `t${i}` });
  // The first turns make a history; the statements of the last ones are recorded (the runner's steady state).
  let started = 0;
  const runner = shippingRunner(kernel, {
    goalId,
    agent: 'night',
    turns: 8,
    onLine: (text) => {
      if (text.includes('"turn_started"') && ++started === 4) recordStatements(kernel.db, executed);
    },
  });
  await runner.run();
});

afterAll(() => {
  kernel.close();
  rmSync(root, { recursive: true, force: true });
});

test("a runner's turns read the goal's history through bounded index steps only: nothing walks every turn or spend the goal ever had", () => {
  const selects = [...new Map(executed.filter((e) => /^\s*(SELECT|WITH)\b/i.test(e.sql)).map((e) => [e.sql, e])).values()];
  expect(selects.length, 'the runner ran its turns (statements recorded)').toBeGreaterThan(10);
  const walks = selects.flatMap((e) => {
    const steps = kernel.db
      .prepare(`EXPLAIN QUERY PLAN ${e.sql}`)
      .all(...e.params)
      .map((row) => String(row.detail));
    if (ONE_ROW_AGGREGATE.test(e.sql)) return [];
    const limited = /\bLIMIT\b/i.test(e.sql) && !steps.some((s) => s.startsWith('USE TEMP B-TREE'));
    return steps
      .filter((step) => {
        const index = WALKS_GOAL_HISTORY.exec(step)?.[1];
        if (!index || BOUNDED_INDEXES.has(index)) return false;
        return !(limited && EVERY_ROW_QUALIFIES.has(index));
      })
      .map((step) => `${step}  ←  ${e.sql.replace(/\s+/g, ' ').slice(0, 140)}`);
  });
  expect(walks, 'steps that walk the goal’s whole history').toEqual([]);
});

/** A step that reads a goal's rows in its budget window: a range on their time. */
const WINDOW_RANGE = /^SEARCH (\w+) USING (COVERING )?INDEX (\w+) \(goal_id=\? AND (?:ended_at|at)>\?\)$/;

test("the budget window's sums read only an index, and only the turns that reported usage: a window's many turns cost little", () => {
  const selects = [...new Map(executed.filter((e) => /^\s*SELECT\b/i.test(e.sql)).map((e) => [e.sql, e])).values()];
  const windowSteps = selects.flatMap((e) =>
    kernel.db
      .prepare(`EXPLAIN QUERY PLAN ${e.sql}`)
      .all(...e.params)
      .map((row) => WINDOW_RANGE.exec(String(row.detail)))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ table: m[1], covering: m[2] !== undefined, index: m[3] })),
  );
  // The spends counted and the usage summed, each run many times a turn (should-run, turn start, the budget line).
  expect(windowSteps.map((s) => s.table).sort()).toEqual(expect.arrayContaining(['quota_spends', 'turns']));
  // Each from an index alone (no lookup of every row), the usage from the turns that reported some (migration 0022).
  expect(windowSteps.filter((s) => !s.covering)).toEqual([]);
  expect([...new Set(windowSteps.filter((s) => s.table === 'turns').map((s) => s.index))]).toEqual(['turns_window_usage']);
});

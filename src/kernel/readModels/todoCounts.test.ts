import { afterEach, beforeEach, expect, test } from 'vitest';
import { agent, human, makeStore, type TestStore } from '../../../test/support/testKit';
import { teamEngineUnderTest } from '../../../test/support/teamTestStore';
import { withoutKeptCounts } from '../../../test/support/schemaKit';
import { MIGRATIONS } from '../db/migrationSql';
import type { SqliteDb } from '../db/sqliteDb';
import { createGoal } from '../goals/goals';
import { addTodo, blockTodo, killTodo, shipTodo, unblockTodo } from '../todos/todos';
import { claimTodo, releaseTodo } from '../todos/claims';
import { replayLog } from '../replay';
import { backupStore, restoreStore } from '../backup';
import { openDb } from '../db/openDb';
import { todoCounts } from './status';
import { countTodos, listTodos, todoPage } from '../todos/todoQueries';
import { iso } from '../time';

/** The counts the store keeps (migration 0016) always equal counting the todos themselves. */
let s: TestStore;
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

/** Counting the todos, as status did before the kept counts. */
function walked(db: SqliteDb): Map<string, Record<string, number>> {
  const counts = new Map<string, Record<string, number>>();
  for (const row of db.prepare('SELECT goal_id, status, count(*) AS n FROM todos GROUP BY goal_id, status').all()) {
    const entry = counts.get(String(row.goal_id)) ?? { open: 0, claimed: 0, in_review: 0, blocked: 0, shipped: 0, killed: 0 };
    entry[String(row.status)] = Number(row.n);
    counts.set(String(row.goal_id), entry);
  }
  return counts;
}

test("each goal's kept counts follow every move of its todos, and a replay of the log keeps the same", () => {
  const codex = s.as(agent('codex'));
  const g1 = createGoal(s.kernel, { title: 'one', turnsPerWindow: 10, maxConcurrent: 5 }).id;
  const g2 = createGoal(s.kernel, { title: 'two', turnsPerWindow: 10 }).id;
  const ids = Array.from({ length: 8 }, (_, i) => addTodo(s.kernel, { goalId: i % 3 ? g1 : g2, title: `todo ${i}` }).id);
  expect(todoCounts(s.kernel.db)).toEqual(walked(s.kernel.db));
  claimTodo(codex, ids[1] as string);
  shipTodo(codex, ids[1] as string, { evidence: 'tests pass' });
  claimTodo(codex, ids[2] as string);
  releaseTodo(codex, ids[2] as string);
  blockTodo(s.kernel, ids[4] as string, 'waits for a decision');
  blockTodo(s.kernel, ids[5] as string, 'waits too');
  unblockTodo(s.kernel, ids[5] as string);
  killTodo(s.kernel, ids[0] as string, 'not needed');
  claimTodo(codex, ids[7] as string);
  const kept = todoCounts(s.kernel.db);
  expect(kept).toEqual(walked(s.kernel.db));
  expect(kept.get(g1)).toEqual({ open: 2, claimed: 1, in_review: 0, blocked: 1, shipped: 1, killed: 0 });
  expect(kept.get(g2)).toEqual({ open: 2, claimed: 0, in_review: 0, blocked: 0, shipped: 0, killed: 1 });
  expect(todoCounts(s.kernel.db, g2)).toEqual(new Map([[g2, kept.get(g2)]]));
  const replayed = replayLog(s.kernel.db);
  try {
    expect(todoCounts(replayed)).toEqual(kept);
  } finally {
    replayed.close();
  }
});

test('a store from before the kept counts gets them counted when it is migrated', () => {
  const goalId = createGoal(s.kernel, { title: 'old', turnsPerWindow: 10 }).id;
  const ids = ['a', 'b', 'c'].map((title) => addTodo(s.kernel, { goalId, title }).id);
  const codex = s.as(agent('codex'));
  claimTodo(codex, ids[0] as string);
  shipTodo(codex, ids[0] as string, { evidence: 'done' });
  // The store as schema 15 left it: no kept counts, no triggers; then migration 16 alone.
  const db = s.kernel.db;
  withoutKeptCounts(db);
  db.exec(MIGRATIONS[15] as string);
  expect(todoCounts(db).get(goalId)).toEqual({ open: 2, claimed: 0, in_review: 0, blocked: 0, shipped: 1, killed: 0 });
  expect(todoCounts(db)).toEqual(walked(db));
});

// A team store takes no restore yet (TeamRefusedError): this one runs on the single-machine engine only.
test.skipIf(teamEngineUnderTest())("a restore brings back the backup's counts, and the copy it saves first keeps the counts it had", () => {
  const goalId = createGoal(s.kernel, { title: 'g', turnsPerWindow: 10 }).id;
  ['a', 'b'].forEach((title) => addTodo(s.kernel, { goalId, title }));
  const before = backupStore(s.kernel);
  const codex = s.as(agent('codex'));
  claimTodo(codex, 'T1');
  shipTodo(codex, 'T1', { evidence: 'done' });
  addTodo(s.kernel, { goalId, title: 'c' });
  const replaced = todoCounts(s.kernel.db);
  s.clock.advance(1);
  const restored = restoreStore(s.as(human), before.path);
  expect(todoCounts(s.kernel.db).get(goalId)).toEqual({ open: 2, claimed: 0, in_review: 0, blocked: 0, shipped: 0, killed: 0 });
  expect(todoCounts(s.kernel.db)).toEqual(walked(s.kernel.db));
  const saved = openDb(restored.saved.path);
  try {
    expect(todoCounts(saved)).toEqual(replaced);
    expect(todoCounts(saved)).toEqual(walked(saved));
  } finally {
    saved.close();
  }
});

test("a page's `more` and every count by goal and status come from the kept counts, equal to counting the todos", () => {
  const codex = s.as(agent('codex'));
  const g1 = createGoal(s.kernel, { title: 'one', turnsPerWindow: 10, maxConcurrent: 5 }).id;
  const g2 = createGoal(s.kernel, { title: 'two', turnsPerWindow: 10 }).id;
  const ids = Array.from({ length: 9 }, (_, i) => addTodo(s.kernel, { goalId: i % 3 ? g1 : g2, title: `todo ${i}` }).id);
  claimTodo(codex, ids[1] as string);
  shipTodo(codex, ids[1] as string, { evidence: 'tests pass' });
  claimTodo(codex, ids[2] as string);
  killTodo(s.kernel, ids[3] as string, 'not needed');
  const db = s.kernel.db;
  const at = iso(s.clock.now());
  const asked: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = (sql: string) => (asked.push(sql), prepare(sql));
  for (const goalId of [undefined, g1, g2, 'G99'])
    for (const status of [undefined, 'open', 'claimed', 'shipped', 'killed', 'blocked'] as const)
      expect(countTodos(db, at, { goalId, status }), `${goalId} ${status}`).toBe(listTodos(db, at, { goalId, status }).length);
  expect(todoPage(db, at, { goalId: g1, limit: 2 }).more).toBe(4);
  expect(todoPage(db, at, { status: 'open', limit: 2, offset: 1 }).more).toBe(3);
  expect(todoPage(db, at, { ready: true, limit: 1 }).more).toBe(5);
  const counted = asked.filter((sql) => /count\(\*\)|sum\(n\)/.test(sql));
  // Only readiness is judged todo by todo: the ready page's one count.
  expect(counted.filter((sql) => /FROM todos\b/.test(sql))).toHaveLength(1);
});

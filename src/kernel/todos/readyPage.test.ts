import { afterEach, beforeEach, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { askGate } from '../gates/gates';
import { iso } from '../time';
import { TODO_COLUMNS, todoFromRow } from '../model';
import { addTodo, blockTodo } from './todos';
import { claimTodo } from './claims';
import { CLAIMABLE_WHERE, countTodos, listTodos, todoPage } from './todoQueries';
import { addMonitor } from '../monitors/monitors';
import { setGoalStatus } from '../goals/goals';
import { MIGRATIONS } from '../db/migrationSql';
import { backToSchema } from '../../../test/support/schemaKit';
import { teamEngineUnderTest } from '../../../test/support/teamTestStore';
import { backupStore, restoreStore } from '../backup';
import { human } from '../../../test/support/testKit';

/**
 * A ready list's page is the claimable todos in claim order (priority, then age), open todos and lapsed claims
 * together: the same rows, in the same order, as one predicate over both sorted whole, for every page and goal.
 */
let s: TestStore;
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

function sortedWhole(goalId?: string): string[] {
  const scope = goalId ? 't.goal_id = ? AND ' : '';
  const at = iso(s.clock.now());
  return s.kernel.db
    .prepare(`SELECT ${TODO_COLUMNS} FROM todos t WHERE ${scope}${CLAIMABLE_WHERE} ORDER BY t.priority, t.num`)
    .all(...(goalId ? [goalId] : []), at, at)
    .map((row) => todoFromRow(row).id);
}

test('every page of a ready list, open todos and lapsed claims merged, is the whole sorted list cut at the page', () => {
  const codex = s.as(agent('codex'));
  const g1 = createGoal(s.kernel, { title: 'one', turnsPerWindow: 100, maxConcurrent: 10 }).id;
  const g2 = createGoal(s.kernel, { title: 'two', turnsPerWindow: 100, maxConcurrent: 10 }).id;
  const ids = Array.from(
    { length: 24 },
    (_, i) => addTodo(s.kernel, { goalId: i % 2 ? g1 : g2, title: `todo ${i}`, priority: (i * 7) % 4 }).id,
  );
  // Lapsed claims (claimable again) at several priorities, a live one, a gated, a blocked and a dependent todo.
  for (const id of [ids[1], ids[6], ids[11]]) claimTodo(codex, id as string, { leaseSeconds: 60 });
  s.clock.advance(120);
  claimTodo(codex, ids[3] as string);
  askGate(codex, { todoId: ids[5] as string, question: 'ok?' });
  blockTodo(s.kernel, ids[8] as string, 'waits');
  addTodo(s.kernel, { goalId: g1, title: 'after T1', priority: 0, dependsOn: [ids[0] as string] });
  const at = iso(s.clock.now());
  for (const goalId of [undefined, g1, g2]) {
    const whole = sortedWhole(goalId);
    expect(whole.length).toBeGreaterThan(8);
    expect(listTodos(s.kernel.db, at, { goalId, ready: true }).map((t) => t.id)).toEqual(whole);
    for (const limit of [1, 3, 5])
      for (let offset = 0; offset <= whole.length; offset += 2) {
        const page = todoPage(s.kernel.db, at, { goalId, ready: true, limit, offset });
        expect(
          page.todos.map((t) => t.id),
          `${goalId} ${offset}+${limit}`,
        ).toEqual(whole.slice(offset, offset + limit));
        expect(page.more).toBe(page.todos.length < limit ? 0 : Math.max(0, whole.length - offset - limit));
      }
  }
  // The lapsed claims are in the list, each at its place in claim order.
  expect(sortedWhole()).toEqual(expect.arrayContaining([ids[1], ids[6], ids[11]]));
});

test('a ready page walks the index in claim order with its limit written in: SQLite sorts nothing, however many todos are ready', () => {
  const g1 = createGoal(s.kernel, { title: 'one', turnsPerWindow: 100 }).id;
  for (let i = 0; i < 5; i++) addTodo(s.kernel, { goalId: g1, title: `todo ${i}`, priority: i % 3 });
  const db = s.kernel.db;
  const asked: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = (sql: string) => (asked.push(sql), prepare(sql));
  for (const goalId of [undefined, g1]) listTodos(db, iso(s.clock.now()), { goalId, ready: true, limit: 2 });
  db.prepare = prepare;
  expect(asked.length).toBe(4);
  const at = iso(s.clock.now());
  for (const sql of asked) {
    const params = sql.includes('goal_id = ?') ? [g1] : [];
    const bound = [...params, ...(sql.includes('lease_expires_at <= ?') ? [at] : []), at];
    const plan = prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...bound)
      .map((row) => String(row.detail));
    expect(
      plan.filter((step) => step.startsWith('USE TEMP B-TREE')),
      sql,
    ).toEqual([]);
    // A bound `LIMIT ?` is prepared again on every run (limitSql.ts): three to eight times this walk's cost.
    expect(sql).toMatch(/LIMIT 2$/);
  }
});

/** A board with every kind of hold: a dependency not shipped, a pending gate, a waiting monitor, a paused goal. */
function heldBoard(): { g1: string; g2: string } {
  const codex = s.as(agent('codex'));
  const g1 = createGoal(s.kernel, { title: 'one', turnsPerWindow: 100, maxConcurrent: 10 }).id;
  const g2 = createGoal(s.kernel, { title: 'two', turnsPerWindow: 100, maxConcurrent: 10 }).id;
  const ids = Array.from({ length: 12 }, (_, i) => addTodo(s.kernel, { goalId: i % 2 ? g1 : g2, title: `todo ${i}` }).id);
  addTodo(s.kernel, { goalId: g1, title: 'after two', dependsOn: [ids[0] as string, ids[2] as string] });
  askGate(codex, { todoId: ids[4] as string, question: 'ok?' });
  addMonitor(s.kernel, { todoId: ids[6] as string, afterSeconds: 600 });
  claimTodo(codex, ids[8] as string, { leaseSeconds: 60 });
  s.clock.advance(120);
  blockTodo(s.kernel, ids[10] as string, 'waits');
  return { g1, g2 };
}

const walkedCount = (goalId?: string) => sortedWhole(goalId).length;

test("a ready list's count is kept as holds come and go, equal to judging every todo, for every goal and for all", () => {
  const { g1, g2 } = heldBoard();
  const at = iso(s.clock.now());
  for (const goalId of [undefined, g1, g2]) expect(countTodos(s.kernel.db, at, { goalId, ready: true }), goalId).toBe(walkedCount(goalId));
  // 13 todos: the dependent, the gated, the watched and the blocked wait; the lapsed claim is claimable again.
  expect(walkedCount()).toBe(9);
  setGoalStatus(s.kernel, g2, 'paused');
  expect(countTodos(s.kernel.db, iso(s.clock.now()), { ready: true })).toBe(walkedCount());
});

test('a store from before the kept holds gets them counted when it is migrated, and a restore counts them again', () => {
  const { g1 } = heldBoard();
  const db = s.kernel.db;
  const at = iso(s.clock.now());
  const kept = () => [
    db.prepare('SELECT todo_id, n FROM todo_holds WHERE n <> 0 ORDER BY todo_id').all(),
    db.prepare('SELECT goal_id, n FROM open_unheld WHERE n <> 0 ORDER BY goal_id').all(),
  ];
  const before = kept();
  expect(before[0]).toHaveLength(3);
  backToSchema(db, 22);
  db.exec(MIGRATIONS[22] as string);
  db.exec('PRAGMA user_version = 23');
  expect(kept()).toEqual(before);
  expect(countTodos(db, at, { ready: true })).toBe(walkedCount());
  expect(countTodos(db, at, { goalId: g1, ready: true })).toBe(walkedCount(g1));
});

// A team store takes no restore (TeamRefusedError): this one runs on the single-machine engine only.
test.skipIf(teamEngineUnderTest())('a restore counts the holds of the backup it brings back', () => {
  const { g1 } = heldBoard();
  const backup = backupStore(s.kernel);
  const codex = s.as(agent('codex'));
  addTodo(s.kernel, { goalId: g1, title: 'later' });
  claimTodo(codex, 'T2');
  s.clock.advance(1);
  restoreStore(s.as(human), backup.path);
  const at = iso(s.clock.now());
  expect(countTodos(s.kernel.db, at, { ready: true })).toBe(walkedCount());
  expect(countTodos(s.kernel.db, at, { goalId: g1, ready: true })).toBe(walkedCount(g1));
});

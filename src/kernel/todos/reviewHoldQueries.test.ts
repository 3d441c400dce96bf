import { afterEach, beforeEach, expect, test } from 'vitest';
import { makeStore, type TestStore } from '../../../test/support/testKit';
import { iso } from '../time';
import { heldFrom, holdOn } from './reviewHoldQueries';

/**
 * A claim of the next todo asks which todos a review sent back to their implementer (the holds): the reviews that
 * asked for changes lately are read through their index (migration 0022), then their todos by key. Every open todo
 * walked instead cost a claim 6 ms at 100,000 todos (bench:mcp).
 */
let s: TestStore;
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

test('the holds are found from the recent verdicts that asked for changes, never by walking the open todos', () => {
  const db = s.kernel.db;
  const asked: { sql: string; params: unknown[] }[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = (sql: string) => {
    const statement = prepare(sql);
    return new Proxy(statement, {
      get: (target, key) =>
        key === 'all' || key === 'get'
          ? (...params: unknown[]) => (asked.push({ sql, params }), (target[key] as (...p: unknown[]) => unknown)(...params))
          : Reflect.get(target, key),
    });
  };
  const at = iso(s.clock.now());
  const claimer = { agent: 'gemini', host: 'gemini' };
  heldFrom(db, null, at, claimer);
  heldFrom(db, 'G1', at, claimer);
  holdOn(db, 'T1', at, claimer);
  db.prepare = prepare;
  expect(asked).toHaveLength(3);
  for (const { sql, params } of asked) {
    const plan = prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...(params as string[]))
      .map((row) => String(row.detail));
    // One todo's hold (holdOn) starts from that todo's reviews; the set from the verdicts of the last half hour.
    const start = /^SEARCH r USING (INDEX reviews_changes_asked \(decided_at>\?\)|PRIMARY KEY \(todo_id=\?\))$/;
    expect(plan[0], sql).toMatch(start);
    expect(
      plan.filter((step) => /^SCAN|todos_ready|todos_goal/.test(step)),
      sql,
    ).toEqual([]);
  }
});

/**
 * A LIMIT (and OFFSET) written into a statement's text, never bound as `LIMIT ?`: SQLite's planner reads a bound
 * LIMIT's value, so such a statement is prepared again every time it runs (5 to 25 µs each; the walk in claim order
 * bound its limit, and `status` took 3.5 ms through MCP instead of 1.6: docs/performance.md, session 29). The one
 * home for writing one: only whole numbers are written (a fraction is cut), so nothing but digits reaches the SQL.
 * `limitSql.test.ts` fails on a `LIMIT ?` anywhere in src/.
 */
export function limitSql(limit: number, offset = 0): string {
  const n = Math.trunc(limit);
  const skip = Math.trunc(offset);
  if (!Number.isSafeInteger(n) || !Number.isSafeInteger(skip)) throw new Error(`LIMIT ${limit} OFFSET ${offset} is not a whole number`);
  return skip ? `LIMIT ${n} OFFSET ${skip}` : `LIMIT ${n}`;
}

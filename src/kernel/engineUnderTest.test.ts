import { afterEach, expect, test } from 'vitest';
import { human, makeStore, type TestStore } from '../../test/support/testKit';
import { createGoal } from './goals/goals';
import { SqliteEngine } from './db/sqliteEngine';
import { TeamEngine } from './team/teamEngine';
import { teamEngineUnderTest } from '../../test/support/teamTestStore';

// The kernel's tests run twice (vitest projects `unit` and `team-conformance`, docs/team.md "Conformance"): this pins
// that the second run really writes through the team engine into PostgreSQL, not silently into SQLite again.
let s: TestStore | undefined;
afterEach(() => s?.dispose());

const events = (store: TestStore) => Number(store.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n);

test.runIf(teamEngineUnderTest())('on the team engine, a test store commits to the PostgreSQL log and the replica follows it', () => {
  s = makeStore();
  createGoal(s.kernel, { title: 'g' });
  const engine = s.kernel.engine;
  expect(engine).toBeInstanceOf(TeamEngine);
  const log = (engine as TeamEngine).pg.query('SELECT count(*) AS n, max(seq) AS head FROM loopx.events')[0];
  expect(Number(log?.n)).toBe(events(s));
  expect(Number(log?.head)).toBe(events(s));
  // A second kernel (another process) sees the first one's write through the log, and its own lands there too.
  const other = s.open({ clock: s.clock.now, actor: human });
  try {
    createGoal(other, { title: 'h' });
    expect(Number((engine as TeamEngine).pg.query('SELECT count(*) AS n FROM loopx.events')[0]?.n)).toBe(events(s));
  } finally {
    other.close();
  }
});

test.runIf(!teamEngineUnderTest())('on SQLite, a test store is a single-machine store', () => {
  s = makeStore();
  createGoal(s.kernel, { title: 'g' });
  expect(s.kernel.engine).toBeInstanceOf(SqliteEngine);
  expect(events(s)).toBe(2);
});

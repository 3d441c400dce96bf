import { afterEach, describe, expect, test } from 'vitest';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo, blockTodo, unblockTodo } from '../../src/kernel/todos/todos';
import { claimTodo } from '../../src/kernel/todos/claims';
import { shipTodo } from '../../src/kernel/todos/todos';
import { askGate, decideGate } from '../../src/kernel/gates/gates';
import { canonicalJson } from '../../src/kernel/events/canonical';
import { logHead } from '../../src/kernel/events/anchor';
import { STATE_TABLES, checkReplay } from '../../src/kernel/replay';
import type { SqliteDb } from '../../src/kernel/db/sqliteDb';
import { moveStoreIn } from '../../src/kernel/team/moveIn';
import { agent, makeStore, type TestStore } from '../support/testKit';
import type { Kernel } from '../../src/kernel/kernel';
import { POSTGRES_MISSING } from '../support/postgres';
import { install, logCopy, loginRole, machine, newTeamStore, useCluster } from './teamKit';

const cleanup: Array<{ close(): void } | TestStore> = [];
afterEach(() => {
  for (const item of cleanup.splice(0)) {
    if ('dispose' in item) item.dispose();
    else item.close();
  }
});

/** A store with a history worth moving: goals, claims, a ship, a block and a person's unblock, a decided gate. */
function storeWithHistory(): TestStore {
  const store = makeStore();
  cleanup.push(store);
  const goal = createGoal(store.kernel, { title: 'moving in' });
  const a = addTodo(store.kernel, { goalId: goal.id, title: 'a' });
  const b = addTodo(store.kernel, { goalId: goal.id, title: 'b' });
  const codex = store.as(agent('codex'));
  claimTodo(codex, a.id);
  store.clock.advance(60);
  shipTodo(codex, a.id, { evidence: 'done' });
  claimTodo(codex, b.id);
  blockTodo(codex, b.id, 'needs a key');
  unblockTodo(store.kernel, b.id, 'here it is');
  const gate = askGate(codex, { goalId: goal.id, question: 'go?' });
  decideGate(store.kernel, gate.id, 'approved');
  return store;
}

function tables(db: SqliteDb): string {
  return canonicalJson(
    Object.fromEntries(Object.entries(STATE_TABLES).map(([t, order]) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY ${order}`).all()])),
  );
}

if (!install) test.skip(POSTGRES_MISSING, () => {});

const fixture = useCluster();

describe.skipIf(!install)('moving an existing store into a team store', () => {
  test('every event arrives as it was, the chain verified on arrival; a machine opening the team store gets the same state', async () => {
    const store = storeWithHistory();
    const { ownerUrl } = await newTeamStore(fixture.cluster);
    const moved = moveStoreIn(store.kernel.db, { connectionString: ownerUrl });
    expect(moved.head).toEqual(logHead(store.kernel.db));
    const log = logCopy(ownerUrl);
    cleanup.push(log);
    expect(logHead(log)).toEqual(logHead(store.kernel.db));
    const m = machine(ownerUrl, agent('codex-elsewhere'));
    cleanup.push(m.kernel as Kernel);
    m.kernel.read(() => null);
    expect(tables(m.kernel.db)).toBe(tables(store.kernel.db));
    expect(checkReplay(m.kernel.db)).toMatchObject({ ok: true });
    // The team store goes on from there: the next write chains onto the moved head.
    const next = addTodo(m.kernel, { goalId: String(store.kernel.db.prepare('SELECT id FROM goals').get()?.id), title: 'after the move' });
    expect(next.title).toBe('after the move');
  });

  test('a team store that has events already is refused, and so is a store whose log is broken; nothing is moved', async () => {
    const store = storeWithHistory();
    const { ownerUrl } = await newTeamStore(fixture.cluster);
    moveStoreIn(store.kernel.db, { connectionString: ownerUrl });
    expect(() => moveStoreIn(store.kernel.db, { connectionString: ownerUrl })).toThrow(/already has \d+ events/);

    const broken = storeWithHistory();
    broken.kernel.db.exec("UPDATE events SET actor = 'mallory' WHERE seq = 3");
    const empty = await newTeamStore(fixture.cluster);
    expect(() => moveStoreIn(broken.kernel.db, { connectionString: empty.ownerUrl })).toThrow(/broken at event 3/);
    expect((await fixture.cluster.sql(empty.name, 'SELECT count(*)::int AS n FROM loopx.events')).rows[0]?.n).toBe(0);
  });

  test('an agent’s role cannot move in a history with a person’s decisions in it; the team log stays empty', async () => {
    const store = storeWithHistory();
    const { name } = await newTeamStore(fixture.cluster);
    await loginRole(fixture.cluster, 'mover_bot', 'loopx_agents');
    expect(() => moveStoreIn(store.kernel.db, { connectionString: fixture.cluster.url(name, 'mover_bot') })).toThrow(
      /not a member of loopx_humans/,
    );
    expect((await fixture.cluster.sql(name, 'SELECT count(*)::int AS n FROM loopx.events')).rows[0]?.n).toBe(0);
  });
});

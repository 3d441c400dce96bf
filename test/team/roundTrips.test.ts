import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo, shipTodo } from '../../src/kernel/todos/todos';
import { claimNext } from '../../src/kernel/todos/claims';
import { listTodos } from '../../src/kernel/todos/todoQueries';
import { agent, human } from '../support/testKit';
import type { Kernel } from '../../src/kernel/kernel';
import type { TeamEngine } from '../../src/kernel/team/teamEngine';
import { openTeamKernel } from '../../src/kernel/team/teamStore';
import { oneShotStats } from '../../src/kernel/team/laterCommit';
import { POSTGRES_MISSING } from '../support/postgres';
import { install, newTeamStore, useCluster } from './teamKit';

// What one agent call (one process: open, one verb, close) asks of PostgreSQL, counted, not timed: each round trip is
// a bridge crossing (syncPg.ts) and, on a one-shot call, most of what a team call costs beyond SQLite's
// (docs/team.md#figures). A change that adds a round trip or a statement to a verb fails here, naming the verb; if the
// new cost is worth it, raise the budget with the reason in docs/team.md.
const BUDGET: Record<string, { batches: number; statements: number }> = {
  // BEGIN, lock the head, the events after the replica's head, the server's clock and durability; ops row, events, NOTIFY, COMMIT.
  'todo claim': { batches: 2, statements: 8 },
  'todo ship': { batches: 2, statements: 8 },
  // The catch-up query (a one-shot read has no listener to skip it).
  'status (a read)': { batches: 1, statements: 1 },
};

if (!install) test.skip(POSTGRES_MISSING, () => {});
const fixture = useCluster();
const work = mkdtempSync(join(tmpdir(), 'loopx-roundtrips-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A machine's workspace with a replica file, as the CLI opens it. */
function openAt(
  root: string,
  url: string,
  actor = agent('codex'),
  applicationName?: string,
  warm = true,
): { kernel: Kernel; engine: TeamEngine } {
  return openTeamKernel(root, {
    replicaPath: join(root, '.loopx', 'team-replica.db'),
    connection: { connectionString: url, application_name: applicationName },
    actor,
    warm,
  });
}

/** Opens the machine, runs `verb`, closes it: a CLI call's round trips and statements. */
function oneCall(root: string, url: string, verb: (kernel: Kernel) => void): { batches: number; statements: number } {
  const { kernel, engine } = openAt(root, url);
  try {
    verb(kernel);
    return { batches: engine.pg.stats.batches, statements: engine.pg.stats.statements };
  } finally {
    kernel.close();
  }
}

describe.skipIf(!install)('round trips of an agent call on a team store', () => {
  test('a claim and a ship cost two round trips each and a read one, within the statement budget', async () => {
    const { ownerUrl } = await newTeamStore(fixture.cluster);
    const owner = openAt(join(work, 'owner'), ownerUrl, human);
    const goal = createGoal(owner.kernel, { title: 'g' });
    for (const title of ['a', 'b']) addTodo(owner.kernel, { goalId: goal.id, title });
    owner.kernel.close();
    const root = join(work, 'agent');
    oneCall(root, ownerUrl, (k) => k.read(() => 0)); // the replica is built from the log once, as `team join` does

    let id = '';
    const costs = {
      'todo claim': oneCall(root, ownerUrl, (k) => (id = claimNext(k).todo.id)),
      'todo ship': oneCall(root, ownerUrl, (k) => shipTodo(k, id, { evidence: 'done' })),
      'status (a read)': oneCall(root, ownerUrl, (k) => k.read((db, now) => listTodos(db, new Date(now).toISOString(), {}))),
    };
    for (const [verb, cost] of Object.entries(costs))
      expect(cost, `${verb}: round trips (batches) and statements sent to PostgreSQL in one call`).toEqual(BUDGET[verb]);
  });

  test("an agent's one-shot write committed after its command: no batch through the worker, 8 statements on its own connection", async () => {
    const { ownerUrl } = await newTeamStore(fixture.cluster);
    const owner = openAt(join(work, 'later-owner'), ownerUrl, human);
    const goal = createGoal(owner.kernel, { title: 'g' });
    addTodo(owner.kernel, { goalId: goal.id, title: 'a' });
    owner.kernel.close();
    const root = join(work, 'later-agent');
    oneCall(root, ownerUrl, (k) => k.read(() => 0)); // the replica, built
    const costs: Record<string, { batches: number; statements: number }> = {};
    for (const [verb, write] of [
      ['todo claim', (k: Kernel) => claimNext(k)],
      ['todo ship', (k: Kernel) => shipTodo(k, 'T1', { evidence: 'done' })],
    ] as const) {
      const { kernel, engine } = openAt(root, ownerUrl, agent('codex'), undefined, false);
      try {
        const sent = oneShotStats.statements;
        await kernel.catchUpFirst({ thenWrite: true });
        write(kernel);
        expect(await kernel.settle()).toBe('done');
        costs[verb] = { batches: engine.pg.stats.batches, statements: oneShotStats.statements - sent };
      } finally {
        kernel.close();
      }
    }
    // The catch-up (events after the replica's head, the server's clock); BEGIN, the head, ops row, events, NOTIFY, COMMIT.
    expect(costs).toEqual({ 'todo claim': { batches: 0, statements: 8 }, 'todo ship': { batches: 0, statements: 8 } });
  });

  test('the worker connects while the replica opens: before the first batch is asked for', async () => {
    const { ownerUrl } = await newTeamStore(fixture.cluster);
    const root = join(work, 'eager');
    openAt(root, ownerUrl, human).kernel.close(); // a replica with history: opening it asks the server nothing
    const name = `loopx-eager-${process.pid}`;
    const { kernel, engine } = openAt(root, ownerUrl, human, name);
    try {
      expect(engine.pg.stats.batches).toBe(0);
      let connected = false;
      for (let i = 0; i < 500 && !connected; i++) {
        const { rows } = await fixture.cluster.sql(
          'postgres',
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
          [name],
        );
        connected = rows[0]?.n === 1;
        if (!connected) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(connected, 'a connection of this machine, opened with no batch asked for').toBe(true);
      expect(engine.pg.stats.batches).toBe(0);
    } finally {
      kernel.close();
    }
  });

  test("a one-shot read caught up first on the calling thread starts no worker: it sends no batch and reads another machine's newest write", async () => {
    const { ownerUrl } = await newTeamStore(fixture.cluster);
    const owner = openAt(join(work, 'first-owner'), ownerUrl, human);
    const goal = createGoal(owner.kernel, { title: 'g' });
    const root = join(work, 'first-reader');
    oneCall(root, ownerUrl, (k) => k.read(() => 0)); // this machine's replica, built and then left behind
    const todo = addTodo(owner.kernel, { goalId: goal.id, title: 'added on another machine' });
    owner.kernel.close();
    const { kernel, engine } = openAt(root, ownerUrl, agent('codex'), undefined, false); // a read-only call: not warmed
    try {
      await kernel.catchUpFirst();
      const ids = kernel.read((db, now) => listTodos(db, new Date(now).toISOString(), {}).map((t) => t.id));
      expect(ids).toEqual([todo.id]);
      // Not warmed and no batch asked: the worker thread was never started.
      expect(engine.pg.stats.batches, 'batches sent through the worker').toBe(0);
    } finally {
      kernel.close();
    }
  });

  test('a one-shot read whose server cannot be reached says so at its read, once, without asking the worker again', async () => {
    const root = join(work, 'first-unreachable');
    const { ownerUrl } = await newTeamStore(fixture.cluster);
    oneCall(root, ownerUrl, (k) => k.read(() => 0));
    const gone = 'postgresql://loopx@127.0.0.1:1/none';
    const { kernel, engine } = openAt(root, gone, agent('codex'), undefined, false); // a read-only call: not warmed
    try {
      await kernel.catchUpFirst();
      expect(() => kernel.read(() => 0)).toThrow(expect.objectContaining({ code: 'team_unreachable' }));
      expect(engine.pg.stats.batches).toBe(0);
    } finally {
      kernel.close();
    }
  });

  test('the replica commits without fsync, and one that lost its newest commits (a power cut) catches up from the log', async () => {
    const { ownerUrl } = await newTeamStore(fixture.cluster);
    const root = join(work, 'powercut');
    const replica = join(root, '.loopx', 'team-replica.db');
    const first = openAt(root, ownerUrl, human);
    const goal = createGoal(first.kernel, { title: 'g' });
    // 1 is NORMAL: in WAL mode a commit is atomic without fsync; only the newest commits can be lost, never the file.
    expect(first.engine.db.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 1 });
    first.kernel.close();
    copyFileSync(replica, join(work, 'before.db'));
    expect(existsSync(`${replica}-wal`) ? 'wal left' : 'checkpointed').toBe('checkpointed');

    const second = openAt(root, ownerUrl, human);
    const todo = addTodo(second.kernel, { goalId: goal.id, title: 'written, then lost by this replica' });
    second.kernel.close();
    copyFileSync(join(work, 'before.db'), replica); // the replica as a power cut could leave it: an earlier head

    const third = openAt(root, ownerUrl, agent('codex'));
    try {
      const todos = third.kernel.read((db, now) => listTodos(db, new Date(now).toISOString(), {}));
      expect(todos.map((t) => t.id)).toEqual([todo.id]);
    } finally {
      third.kernel.close();
    }
  });
});

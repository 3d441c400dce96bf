import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { createGoal } from '../../src/kernel/goals/goals';
import { addEvidence } from '../../src/kernel/evidence/evidence';
import { addTodo, shipTodo } from '../../src/kernel/todos/todos';
import { claimNext, claimTodo } from '../../src/kernel/todos/claims';
import { getTodo } from '../../src/kernel/todos/todoQueries';
import { fetchAfter } from '../../src/kernel/team/teamLog';
import { SyncPg } from '../../src/kernel/team/syncPg';
import { openTeamKernel } from '../../src/kernel/team/teamStore';
import type { Kernel } from '../../src/kernel/kernel';
import type { TeamEngine } from '../../src/kernel/team/teamEngine';
import { agent, human } from '../support/testKit';
import { install, loginRole, newTeamStore, teamSuite } from './teamKit';

// A one-shot write verb on a team store (the CLI's claim, ship, evidence…) commits to the log after its command, on the
// connection its catch-up opened (laterCommit.ts): no worker thread. Optimistic, checked under the log's head: these
// tests hold it to the ordinary write's promises (nothing written twice, nothing lost, nothing decided for a person).
const suite = teamSuite('latercommit');

/** A machine's workspace, its replica a file as the CLI's is; opened like a one-shot write verb opens it (no worker). */
function openAt(name: string, url: string, actor = agent('codex')): { kernel: Kernel; engine: TeamEngine } {
  const root = join(suite.work, name);
  const opened = openTeamKernel(root, {
    replicaPath: join(root, '.loopx', 'team-replica.db'),
    connection: { connectionString: url, application_name: `loopx-${name}` },
    actor,
    warm: false,
  });
  suite.open.push(opened.kernel);
  return opened;
}

/** A team store with one active goal and `todos` todos, written by its owner (a person). */
async function store(todos: number): Promise<{ name: string; url: string; goalId: string }> {
  const { name, ownerUrl } = await newTeamStore(suite.cluster);
  const owner = openAt(`owner-${name}`, ownerUrl, human);
  const goal = createGoal(owner.kernel, { title: 'g' });
  for (let i = 1; i <= todos; i++) addTodo(owner.kernel, { goalId: goal.id, title: `todo ${i}` });
  return { name, url: ownerUrl, goalId: goal.id };
}

const logOf = (url: string) => {
  const pg = new SyncPg({ connectionString: url });
  try {
    return fetchAfter(pg, 0);
  } finally {
    pg.close();
  }
};

describe.skipIf(!install)('a one-shot write committed after its command', () => {
  test('commits to the log, then the replica, on the catch-up connection: no worker, nothing in the log before', async () => {
    const { url } = await store(2);
    const { kernel, engine } = openAt('plain', url);
    const batches = engine.pg.stats.batches; // building the replica went through the worker
    await kernel.catchUpFirst({ thenWrite: true });
    const before = logOf(url).length;
    const claimed = claimNext(kernel).todo;
    // The command's own reads see its write; the log does not have it yet.
    expect(kernel.read((db) => getTodo(db, claimed.id)).owner).toBe('codex');
    expect(logOf(url)).toHaveLength(before);
    expect(await kernel.settle()).toBe('done');
    const log = logOf(url);
    expect(log.slice(before).map((e) => `${e.kind} ${e.todoId} ${e.actor}`)).toEqual([`todo.claimed ${claimed.id} codex`]);
    expect(kernel.read((db) => getTodo(db, claimed.id)).owner).toBe('codex');
    expect(engine.pg.stats.batches, 'batches through the worker').toBe(batches);
  });

  test("another machine's write between the catch-up and the commit: nothing is sent, the replica rolls back, again", async () => {
    const { url } = await store(2);
    const a = openAt('a-moved', url, agent('codex'));
    const b = openAt('b-moved', url, agent('claude'));
    b.kernel.read(() => 0); // b's replica built
    await a.kernel.catchUpFirst({ thenWrite: true });
    expect(claimNext(a.kernel).todo.id).toBe('T1');
    expect(claimTodo(b.kernel, 'T1').todo.owner).toBe('claude');
    expect(await a.kernel.settle()).toBe('again');
    // a's write is gone from its replica, and its reads ask the log again: T1 is claude's. Run again (the ordinary
    // way), a's claim takes what is still ready.
    expect(a.kernel.read((db) => getTodo(db, 'T1')).owner).toBe('claude');
    expect(claimNext(a.kernel).todo.id).toBe('T2');
    const claims = logOf(url).filter((e) => e.kind === 'todo.claimed');
    expect(claims.map((e) => `${e.todoId} ${e.actor}`)).toEqual(['T1 claude', 'T2 codex']);
  });

  test('a sibling process of this machine wrote the replica since the catch-up: the write goes the ordinary way', async () => {
    const { url } = await store(2);
    const first = openAt('siblings', url, agent('codex'));
    first.kernel.read(() => 0);
    const sibling = openAt('siblings', url, agent('claude'));
    await first.kernel.catchUpFirst({ thenWrite: true });
    expect(claimTodo(sibling.kernel, 'T1').todo.owner).toBe('claude');
    // first's catch-up did not see T1's claim: its claim of T1 would be a double one; the ordinary way refuses it.
    expect(() => claimTodo(first.kernel, 'T1')).toThrow(/claude/);
    expect(claimTodo(first.kernel, 'T2').todo.owner).toBe('codex');
    expect(first.engine.pg.stats.batches, 'the ordinary write: lock and fetch, then commit').toBeGreaterThan(0);
    expect(await first.kernel.settle()).toBe('done');
    expect(
      logOf(url)
        .filter((e) => e.kind === 'todo.claimed')
        .map((e) => `${e.todoId} ${e.actor}`),
    ).toEqual(['T1 claude', 'T2 codex']);
  });

  test('a refused write leaves the writes before it, which commit; the refusal is the answer', async () => {
    const { url } = await store(2);
    const { kernel } = openAt('refused', url);
    await kernel.catchUpFirst({ thenWrite: true });
    claimTodo(kernel, 'T1');
    expect(() => addEvidence(kernel, { todoId: 'T9', summary: 'x' })).toThrow(/T9/);
    addEvidence(kernel, { todoId: 'T1', summary: 'ran the tests' });
    shipTodo(kernel, 'T1', {});
    expect(await kernel.settle()).toBe('done');
    const kinds = logOf(url)
      .filter((e) => e.todoId === 'T1')
      .map((e) => e.kind);
    expect(kinds).toEqual(['todo.added', 'todo.claimed', 'evidence', 'todo.shipped']);
  });

  test("a person's decision through the agents' login is refused at the commit: nothing in the log, nor in the replica", async () => {
    const { name, url } = await store(0);
    await loginRole(suite.cluster, 'later_agents', 'loopx_agents');
    // A person's kernel (as on a machine whose login is the agents'): the database judges the login, not the actor.
    const { kernel } = openAt('forged', suite.cluster.url(name, 'later_agents'), human);
    await kernel.catchUpFirst({ thenWrite: true });
    const before = logOf(url).length;
    createGoal(kernel, { title: 'decided by an agent' });
    await expect(kernel.settle()).rejects.toMatchObject({ code: 'not_allowed' });
    expect(logOf(url)).toHaveLength(before);
    expect(kernel.read((db) => db.prepare("SELECT count(*) AS n FROM goals WHERE title = 'decided by an agent'").get()?.n)).toBe(0);
  });

  test('the connection lost before the commit: the log says it did not land; again, and nothing is written', async () => {
    const { url } = await store(1);
    const { kernel } = openAt('lost', url);
    await kernel.catchUpFirst({ thenWrite: true });
    claimTodo(kernel, 'T1');
    await suite.cluster.sql(
      'postgres',
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'loopx-lost' AND pid <> pg_backend_pid()",
    );
    expect(await kernel.settle()).toBe('again');
    expect(kernel.read((db) => getTodo(db, 'T1')).owner).toBeNull();
    expect(logOf(url).filter((e) => e.kind === 'todo.claimed')).toEqual([]);
    // Run again, the ordinary way: one claim.
    claimTodo(kernel, 'T1');
    expect(logOf(url).filter((e) => e.kind === 'todo.claimed')).toHaveLength(1);
  });

  test('a server that may forget what it confirms is refused at the first write, before anything is written', async () => {
    const { name, url } = await store(1);
    openAt('lax', url).kernel.close(); // the replica, built while the server was durable
    await suite.cluster.sql(name, `ALTER DATABASE ${name} SET synchronous_commit = off`);
    const { kernel } = openAt('lax', url);
    await kernel.catchUpFirst({ thenWrite: true });
    expect(() => claimTodo(kernel, 'T1')).toThrow(expect.objectContaining({ code: 'team_not_durable' }));
    expect(await kernel.settle()).toBe('done');
    expect(logOf(url).filter((e) => e.kind === 'todo.claimed')).toEqual([]);
  });

  test('a server that cannot be reached is said at the first write, in the same words and code as the ordinary way', async () => {
    const { url } = await store(1);
    openAt('gone', url).kernel.close();
    // The same replica, its server gone (nobody listens where the pointer now says).
    const { kernel } = openTeamKernel(join(suite.work, 'gone'), {
      replicaPath: join(suite.work, 'gone', '.loopx', 'team-replica.db'),
      connection: { connectionString: 'postgresql://127.0.0.1:1/nowhere', connectTimeoutMs: 2000 },
      actor: agent('codex'),
      warm: false,
    });
    suite.open.push(kernel);
    await kernel.catchUpFirst({ thenWrite: true });
    expect(() => claimTodo(kernel, 'T1')).toThrow(expect.objectContaining({ code: 'team_unreachable' }));
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { claimTodo } from '../../src/kernel/todos/claims';
import { shipTodo } from '../../src/kernel/todos/todos';
import { listTodos } from '../../src/kernel/todos/todoQueries';
import { verifyChain } from '../../src/kernel/events/verify';
import { checkReplay } from '../../src/kernel/replay';
import { AlreadyClaimedError } from '../../src/kernel/errors';
import { agent, human } from '../support/testKit';
import type { Kernel } from '../../src/kernel/kernel';
import { POSTGRES_MISSING } from '../support/postgres';
import type { PgStatement } from '../../src/kernel/team/syncPg';
import { openTeamKernel } from '../../src/kernel/team/teamStore';
import { install, logCopy, machine, newTeamStore, useCluster } from './teamKit';

const open: Kernel[] = [];
afterEach(() => {
  for (const kernel of open.splice(0)) kernel.close();
});
function onMachine(...args: Parameters<typeof machine>) {
  const m = machine(...args);
  open.push(m.kernel);
  return m;
}

if (!install) test.skip(POSTGRES_MISSING, () => {});

// One cluster for the file; each test makes its own team store (a database) in it.
const fixture = useCluster();

describe.skipIf(!install)('team engine on a real PostgreSQL', () => {
  test('the harness starts an unprivileged cluster and reports its start-up time', async () => {
    const { rows } = await fixture.cluster.sql('postgres', "SELECT current_user AS who, current_setting('listen_addresses') AS listen");
    expect(rows[0]).toEqual({ who: 'loopx_admin', listen: '127.0.0.1' });
    expect(fixture.cluster.startupMs).toBeGreaterThan(0);
    console.info(`PostgreSQL cluster up in ${fixture.cluster.startupMs.toFixed(0)} ms (${fixture.cluster.version})`);
  });

  test('a write lands in the PostgreSQL log; another machine sees it on its next read', async () => {
    const { name, ownerUrl } = await newTeamStore(fixture.cluster);
    const a = onMachine(ownerUrl, human);
    const goal = createGoal(a.kernel, { title: 'team goal' });
    const todo = addTodo(a.kernel, { goalId: goal.id, title: 'first' });
    const b = onMachine(ownerUrl, agent('codex-b'));
    const seen = b.kernel.read((db, now) => listTodos(db, new Date(now).toISOString(), {}));
    expect(seen.map((t) => t.id)).toEqual([todo.id]);
    const { rows } = await fixture.cluster.sql(name, 'SELECT kind, written_by FROM loopx.events ORDER BY seq');
    expect(rows.map((r) => r.kind)).toEqual(['store.initialized', 'goal.created', 'todo.added']);
  });

  test('a claim on a replica that has not seen the other machine’s claim is refused: the write catches up first', async () => {
    const { ownerUrl } = await newTeamStore(fixture.cluster);
    const a = onMachine(ownerUrl, human);
    const goal = createGoal(a.kernel, { title: 'g' });
    const todo = addTodo(a.kernel, { goalId: goal.id, title: 't' });
    const one = onMachine(ownerUrl, agent('codex-1'));
    const two = onMachine(ownerUrl, agent('codex-2'));
    // Both replicas know the todo and see it open.
    for (const m of [one, two]) expect(m.kernel.read((db, now) => listTodos(db, new Date(now).toISOString(), {}))[0]?.status).toBe('open');
    claimTodo(one.kernel, todo.id);
    expect(() => claimTodo(two.kernel, todo.id)).toThrow(AlreadyClaimedError);
    shipTodo(one.kernel, todo.id, { evidence: 'done' });
    const log = logCopy(ownerUrl);
    try {
      expect(verifyChain(log)).toMatchObject({ ok: true, firstBadSeq: null });
      expect(log.prepare("SELECT count(*) AS n FROM events WHERE kind = 'todo.claimed'").get()?.n).toBe(1);
    } finally {
      log.close();
    }
    // Each replica is the log's projection: replaying the log gives its tables exactly.
    two.kernel.read(() => null);
    for (const m of [one, two]) expect(checkReplay(m.kernel.db)).toMatchObject({ ok: true });
  });
});

describe.skipIf(!install)('operation ids: a commit whose outcome was lost lands once', () => {
  const isCommit = (statements: readonly PgStatement[]) => statements.at(-1)?.text === 'COMMIT' && statements.length > 1;

  async function claimedTwice(fault: 'lose-before' | 'lose-after') {
    const { name, ownerUrl } = await newTeamStore(fixture.cluster);
    const a = onMachine(ownerUrl, human);
    const todo = addTodo(a.kernel, { goalId: createGoal(a.kernel, { title: 'g' }).id, title: 't' });
    const b = onMachine(ownerUrl, agent('codex-b'));
    b.engine.pg.injectFault(fault, isCommit);
    const claim = claimTodo(b.kernel, todo.id);
    const claims = await fixture.cluster.sql(name, "SELECT op_id FROM loopx.events WHERE kind = 'todo.claimed'");
    const ops = await fixture.cluster.sql(name, 'SELECT op_id FROM loopx.ops WHERE op_id = $1', [claims.rows[0]?.op_id]);
    return { claim, claims: claims.rows.length, ops: ops.rows.length, replica: b.kernel };
  }

  test('the connection is lost after COMMIT ran: the operation id is found, the write stands, nothing is written twice', async () => {
    const { claim, claims, ops, replica } = await claimedTwice('lose-after');
    expect(claim.todo.owner).toBe('codex-b');
    expect([claims, ops]).toEqual([1, 1]);
    expect(replica.read((db) => db.prepare('SELECT owner FROM todos WHERE id = ?').get(claim.todo.id)?.owner)).toBe('codex-b');
    expect(checkReplay(replica.db)).toMatchObject({ ok: true });
  });

  test('the connection is lost before COMMIT ran: the operation id is not found, the write runs again and lands once', async () => {
    const { claim, claims, ops, replica } = await claimedTwice('lose-before');
    expect(claim.todo.owner).toBe('codex-b');
    expect([claims, ops]).toEqual([1, 1]);
    expect(checkReplay(replica.db)).toMatchObject({ ok: true });
  });

  test('a commit sent again with an operation id the log has is refused, and the replica keeps nothing of it', async () => {
    const { name, ownerUrl } = await newTeamStore(fixture.cluster);
    const a = onMachine(ownerUrl, human);
    a.engine.newOperationId = () => '00000000-0000-4000-8000-000000000025';
    createGoal(a.kernel, { title: 'once' });
    expect(() => createGoal(a.kernel, { title: 'twice' })).toThrow(/ops_pkey|duplicate key/);
    const goals = await fixture.cluster.sql(name, "SELECT count(*)::int AS n FROM loopx.events WHERE kind = 'goal.created'");
    expect(goals.rows[0]?.n).toBe(1);
    expect(a.kernel.read((db) => db.prepare('SELECT count(*) AS n FROM goals').get()?.n)).toBe(1);
  });
});

describe.skipIf(!install)('the server goes away', () => {
  test('a server that may forget confirmed commits (synchronous_commit off) is refused before anything is written', async () => {
    const { name, ownerUrl } = await newTeamStore(fixture.cluster);
    await fixture.cluster.sql(name, `ALTER DATABASE ${name} SET synchronous_commit = off`);
    expect(() => machine(ownerUrl, human)).toThrow(expect.objectContaining({ code: 'team_not_durable', exitCode: 6 }));
    expect((await fixture.cluster.sql(name, 'SELECT count(*)::int AS n FROM loopx.events')).rows[0]?.n).toBe(0);
  });

  test('a replica with history opens without the server, and its first write still refuses a server that may forget commits', async () => {
    const { name, ownerUrl } = await newTeamStore(fixture.cluster);
    const root = mkdtempSync(join(tmpdir(), 'loopx-durable-'));
    const open = () =>
      openTeamKernel(root, { replicaPath: join(root, '.loopx', 'loopx.db'), connection: { connectionString: ownerUrl }, actor: human });
    try {
      const first = open().kernel;
      createGoal(first, { title: 'kept' });
      first.close();
      await fixture.cluster.sql(name, `ALTER DATABASE ${name} SET synchronous_commit = off`);
      const kernel = open().kernel;
      try {
        expect(kernel.read((db) => db.prepare('SELECT count(*) AS n FROM goals').get()?.n)).toBe(1);
        expect(() => createGoal(kernel, { title: 'not on this server' })).toThrow(
          expect.objectContaining({ code: 'team_not_durable', exitCode: 6 }),
        );
      } finally {
        kernel.close();
      }
      expect((await fixture.cluster.sql(name, "SELECT count(*)::int AS n FROM loopx.events WHERE kind = 'goal.created'")).rows[0]?.n).toBe(
        1,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('while the server is down a write fails as environment trouble and changes nothing; once it is back the same kernel writes again', async () => {
    const { name, ownerUrl } = await newTeamStore(fixture.cluster);
    const a = onMachine(ownerUrl, agent('codex-a'));
    const goal = createGoal(a.kernel.as(human), { title: 'g' });
    const todo = addTodo(a.kernel.as(human), { goalId: goal.id, title: 't' });
    await fixture.cluster.crash();
    try {
      expect(() => claimTodo(a.kernel, todo.id)).toThrow(expect.objectContaining({ code: 'team_unreachable', exitCode: 6 }));
      expect(a.kernel.db.prepare('SELECT status FROM todos WHERE id = ?').get(todo.id)?.status).toBe('open');
      // A read cannot catch up either, and says so the same way.
      expect(() => a.kernel.read(() => null)).toThrow(expect.objectContaining({ code: 'team_unreachable' }));
    } finally {
      await fixture.cluster.restart();
    }
    expect(claimTodo(a.kernel, todo.id).todo.owner).toBe('codex-a');
    const claims = await fixture.cluster.sql(name, "SELECT count(*)::int AS n FROM loopx.events WHERE kind = 'todo.claimed'");
    expect(claims.rows[0]?.n).toBe(1);
  });
});

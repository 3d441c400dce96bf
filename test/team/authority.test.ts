import { afterEach, describe, expect, test } from 'vitest';
import pg from 'pg';
import { createGoal, setGoalStatus } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { askGate, decideGate } from '../../src/kernel/gates/gates';
import { verifyChain } from '../../src/kernel/events/verify';
import { NotAllowedError } from '../../src/kernel/errors';
import { agent, human } from '../support/testKit';
import { HUMAN_ONLY_KINDS } from '../../src/kernel/authority';
import type { Kernel } from '../../src/kernel/kernel';
import type { PgCluster } from '../support/postgres';
import { POSTGRES_MISSING } from '../support/postgres';
import { install, logCopy, loginRole, machine, newTeamStore, rawAppend, useCluster } from './teamKit';

const open: Kernel[] = [];
afterEach(() => {
  for (const kernel of open.splice(0)) kernel.close();
});
function onMachine(...args: Parameters<typeof machine>) {
  const m = machine(...args);
  open.push(m.kernel);
  return m;
}

async function rawSql(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

if (!install) test.skip(POSTGRES_MISSING, () => {});

const fixture = useCluster();

/** A team store with a pending gate, an agent login (`agent_bob`) and a person's (`ada`). */
async function storeWithGate(cluster: PgCluster) {
  const { name, ownerUrl } = await newTeamStore(cluster);
  await loginRole(cluster, 'agent_bob', 'loopx_agents');
  await loginRole(cluster, 'ada', 'loopx_humans');
  const agentUrl = cluster.url(name, 'agent_bob');
  const humanUrl = cluster.url(name, 'ada');
  const person = onMachine(humanUrl, human);
  const goal = createGoal(person.kernel, { title: 'ship it' });
  const todo = addTodo(person.kernel, { goalId: goal.id, title: 'deploy' });
  const bob = onMachine(agentUrl, agent('agent_bob'));
  const gate = askGate(bob.kernel, { todoId: todo.id, question: 'deploy to production?' });
  return { name, ownerUrl, agentUrl, humanUrl, person, bob, goal, todo, gate };
}

describe.skipIf(!install)('authority enforced by the database', () => {
  test('an agent role with raw SQL cannot decide a gate, even with a well-formed chained event; a person’s role can', async () => {
    const s = await storeWithGate(fixture.cluster);
    const decision = {
      kind: 'gate.decided',
      goalId: s.goal.id,
      todoId: s.todo.id,
      data: { id: s.gate.id, status: 'approved', note: null },
    };
    await expect(rawAppend(s.agentUrl, { ...decision, actor: 'agent_bob', actorKind: 'agent' })).rejects.toThrow(
      /gate\.decided\) is a person's decision: database role agent_bob is not a member of loopx_humans/,
    );
    // Claiming to be the human does not help: an event recorded as a human's needs a human's role too.
    await expect(rawAppend(s.agentUrl, { ...decision, actor: 'ada', actorKind: 'human' })).rejects.toThrow(/not a member of loopx_humans/);
    const seq = await rawAppend(s.humanUrl, { ...decision, actor: 'ada', actorKind: 'human' });
    const row = (await fixture.cluster.sql(s.name, 'SELECT kind, written_by FROM loopx.events WHERE seq = $1', [seq])).rows[0];
    expect(row).toEqual({ kind: 'gate.decided', written_by: 'ada' });
    const log = logCopy(s.ownerUrl);
    try {
      expect(verifyChain(log)).toMatchObject({ ok: true });
    } finally {
      log.close();
    }
  });

  test('a kernel that says it acts for a person but connects with an agent’s role is refused by the database; its replica keeps nothing', async () => {
    const s = await storeWithGate(fixture.cluster);
    const impostor = onMachine(s.agentUrl, human);
    expect(() => decideGate(impostor.kernel, s.gate.id, 'approved')).toThrow(NotAllowedError);
    expect(impostor.kernel.read((db) => db.prepare('SELECT status FROM gates WHERE id = ?').get(s.gate.id)?.status)).toBe('pending');
    // The person, through their own role, decides it.
    expect(decideGate(s.person.kernel, s.gate.id, 'approved').status).toBe('approved');
  });

  test('resuming a goal a person paused needs a person’s role; an agent may undo its own pause', async () => {
    const s = await storeWithGate(fixture.cluster);
    setGoalStatus(s.person.kernel, s.goal.id, 'paused');
    const resume = { kind: 'goal.status', goalId: s.goal.id, todoId: null, data: { status: 'active', from: 'paused' } };
    await expect(rawAppend(s.agentUrl, { ...resume, actor: 'agent_bob', actorKind: 'agent' })).rejects.toThrow(
      /goal\.status\) is a person's decision/,
    );
    setGoalStatus(s.person.kernel, s.goal.id, 'active');
    setGoalStatus(s.bob.kernel, s.goal.id, 'paused');
    expect(setGoalStatus(s.bob.kernel, s.goal.id, 'active').status).toBe('active');
  });

  test('the event log is append-only: neither an agent’s role nor a person’s may update, delete or truncate it', async () => {
    const s = await storeWithGate(fixture.cluster);
    for (const url of [s.agentUrl, s.humanUrl]) {
      await expect(rawSql(url, "UPDATE loopx.events SET actor = 'x' WHERE seq = 1")).rejects.toThrow(/permission denied/);
      await expect(rawSql(url, 'DELETE FROM loopx.events WHERE seq > 1')).rejects.toThrow(/permission denied/);
      await expect(rawSql(url, 'TRUNCATE loopx.events')).rejects.toThrow(/permission denied/);
      await expect(rawSql(url, 'UPDATE loopx.head SET seq = 1')).rejects.toThrow(/permission denied/);
    }
    // Even a role granted UPDATE by mistake is stopped by the trigger.
    await fixture.cluster.sql(s.name, 'GRANT UPDATE, DELETE ON loopx.events TO agent_bob');
    await expect(rawSql(s.agentUrl, "UPDATE loopx.events SET actor = 'x' WHERE seq = 1")).rejects.toThrow(/append-only/);
    await expect(rawSql(s.agentUrl, 'DELETE FROM loopx.events WHERE seq > 1')).rejects.toThrow(/append-only/);
  });

  test('an event that does not follow the head is refused by the database, whoever sends it', async () => {
    const s = await storeWithGate(fixture.cluster);
    const client = new pg.Client({ connectionString: s.agentUrl });
    await client.connect();
    try {
      await expect(
        client.query(
          `INSERT INTO loopx.events (seq, at, actor, actor_kind, kind, goal_id, todo_id, data, prev_hash, hash, op_id)
            VALUES (2, 'x', 'agent_bob', 'agent', 'todo.renewed', null, null, '{}', repeat('0', 64), repeat('1', 64), gen_random_uuid())`,
        ),
      ).rejects.toThrow(/does not follow the head of the log/);
    } finally {
      await client.end();
    }
  });

  test("every kind on the kernel's human-only list is refused to an agent's role by raw SQL (the trigger is that list)", async () => {
    const s = await storeWithGate(fixture.cluster);
    for (const kind of HUMAN_ONLY_KINDS) {
      const draft = { kind, goalId: s.goal.id, todoId: s.todo.id, data: {}, actor: 'agent_bob', actorKind: 'agent' };
      await expect(rawAppend(s.agentUrl, draft), kind).rejects.toThrow(
        new RegExp(`\\(${kind.replace('.', '\\.')}\\) is a person's decision`),
      );
    }
    // Removing a worktree folder with uncommitted changes is a person's force; the kernel's own clean-up never forces.
    const removed = { kind: 'worktree.removed', goalId: s.goal.id, todoId: s.todo.id, actor: 'agent_bob', actorKind: 'agent' };
    await expect(rawAppend(s.agentUrl, { ...removed, data: { path: '/w', forced: true } })).rejects.toThrow(/is a person's decision/);
    await rawAppend(s.agentUrl, { ...removed, data: { path: '/w', forced: false } });
    // An agent's ordinary event still goes in: the trigger refuses the list, not everything.
    await rawAppend(s.agentUrl, {
      kind: 'todo.edited',
      goalId: s.goal.id,
      todoId: s.todo.id,
      data: { title: 'deploy it' },
      actor: 'agent_bob',
      actorKind: 'agent',
    });
  });

  test("a person's role writes only in that person's name (or a name the owner mapped it to); the owner moves old names in", async () => {
    const s = await storeWithGate(fixture.cluster);
    await loginRole(fixture.cluster, 'grace', 'loopx_humans');
    const graceUrl = fixture.cluster.url(s.name, 'grace');
    const decision = {
      kind: 'gate.decided',
      goalId: s.goal.id,
      todoId: s.todo.id,
      data: { id: s.gate.id, status: 'approved', note: null },
    };
    // Grace, a person with her own login, cannot decide in Ada's name; nor can a kernel that says it is Ada.
    await expect(rawAppend(graceUrl, { ...decision, actor: 'ada', actorKind: 'human' })).rejects.toThrow(
      /recorded as person ada, but database role grace writes it/,
    );
    const impostor = onMachine(graceUrl, human);
    expect(() => decideGate(impostor.kernel, s.gate.id, 'approved')).toThrow(NotAllowedError);
    // Her loopx name may differ from her login once the owner says so.
    await expect(rawAppend(graceUrl, { ...decision, actor: 'Grace Hopper', actorKind: 'human' })).rejects.toThrow(
      /a person writes in their own name/,
    );
    await fixture.cluster.sql(s.name, "INSERT INTO loopx.people (login, actor) VALUES ('grace', 'Grace Hopper')");
    const seq = await rawAppend(graceUrl, { ...decision, actor: 'Grace Hopper', actorKind: 'human' });
    expect((await fixture.cluster.sql(s.name, 'SELECT written_by FROM loopx.events WHERE seq = $1', [seq])).rows[0]).toEqual({
      written_by: 'grace',
    });
    // The owner (who moves a store in, with its history's names) may record any person's event.
    await rawAppend(s.ownerUrl, {
      kind: 'todo.blocked',
      goalId: s.goal.id,
      todoId: s.todo.id,
      data: { reason: 'waiting on a vendor', previousOwner: null },
      actor: 'someone from before',
      actorKind: 'human',
    });
  });
});

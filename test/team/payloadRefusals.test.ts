import { describe, expect, test } from 'vitest';
import { createGoal, setGoalStatus } from '../../src/kernel/goals/goals';
import { addTodo, killTodo, shipTodo } from '../../src/kernel/todos/todos';
import { claimTodo } from '../../src/kernel/todos/claims';
import { addEvidence } from '../../src/kernel/evidence/evidence';
import { addMonitor } from '../../src/kernel/monitors/monitors';
import { setTodoCheck } from '../../src/kernel/checks/checks';
import { verifyChain } from '../../src/kernel/events/verify';
import { history } from '../../src/kernel/events/log';
import { eventDataSchemas } from '../../src/kernel/events/eventTypes';
import { PERSONS_PAYLOADS } from '../../src/kernel/authority';
import { installTeamSchema } from '../../src/kernel/team/teamStore';
import { eventKindSchemas } from '../../src/kernel/team/teamPayloadSql';
import { authorityBehind } from '../../src/kernel/team/teamInspect';
import { SyncPg } from '../../src/kernel/team/syncPg';
import { agent, human } from '../support/testKit';
import { HONEST_DATA, decidingData } from '../support/personsPayloadsKit';
import type { PgCluster } from '../support/postgres';
import { install, logCopy, loginRole, machine, newTeamStore, rawAppend, teamSuite } from './teamKit';

// Issue 38: the team store's database accepts only events the kernel itself would write: a kind loopx writes, data
// that fits that kind's schema, and no person's decision in the data of an agent's event (authority.ts
// PERSONS_PAYLOADS). Each refusal here goes through the agents' database login with a well-chained event.

const suite = teamSuite('payload');

/** A team store with a goal and a todo a person made, an agent login (`agent_eve`) and a person's (`ada`). */
async function store(cluster: PgCluster) {
  const { name, ownerUrl } = await newTeamStore(cluster);
  await loginRole(cluster, 'agent_eve', 'loopx_agents');
  await loginRole(cluster, 'ada', 'loopx_humans');
  const agentUrl = cluster.url(name, 'agent_eve');
  const humanUrl = cluster.url(name, 'ada');
  const person = machine(humanUrl, human);
  suite.open.push(person.kernel);
  const goal = createGoal(person.kernel, { title: 'ship it' });
  const todo = addTodo(person.kernel, { goalId: goal.id, title: 'deploy' });
  const head = async () => Number((await cluster.sql(name, 'SELECT seq FROM loopx.head')).rows[0].seq);
  return { name, ownerUrl, agentUrl, humanUrl, person, goal, todo, head };
}

type Ids = { goalId: string; todoId: string };
let counter = 100;
const honest = (kind: string, n = counter++) => (HONEST_DATA[kind] as (n: number) => Record<string, unknown>)(n);

/** A raw event: a new goal or todo is its own goal or todo, as the kernel records it. */
function draft(kind: string, ids: Ids, data: Record<string, unknown>, actor = 'agent_eve', actorKind = 'agent') {
  const goalId = kind === 'goal.created' ? (data.id as string) : ids.goalId;
  const todoId = kind.startsWith('goal.') ? null : kind === 'todo.added' ? (data.id as string) : ids.todoId;
  return { kind, goalId, todoId, data, actor, actorKind };
}
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe.skipIf(!install)("the team store's database refuses what the kernel would not write", () => {
  test("every person's decision PERSONS_PAYLOADS lists is refused to the agents' login, named, nothing written; a person's login writes it", async () => {
    const s = await store(suite.cluster);
    // Every todo the loops need, made first: the kernel numbers a new todo after the highest, and a person's raw
    // todo.added below (T100 and up) would otherwise put the next one's id on a number the counter gives later.
    const kinds = new Set(PERSONS_PAYLOADS.map((r) => r.kind));
    const made = Array.from({ length: PERSONS_PAYLOADS.length + kinds.size }, () =>
      addTodo(s.person.kernel, { goalId: s.goal.id, title: 'work' }),
    );
    const fresh = () => ({ goalId: s.goal.id, todoId: (made.shift() as { id: string }).id });
    for (const rule of PERSONS_PAYLOADS) {
      const ids = fresh();
      const data = decidingData(rule, counter++);
      const before = await s.head();
      await expect(rawAppend(s.agentUrl, draft(rule.kind, ids, data)), rule.act).rejects.toThrow(
        new RegExp(
          `\\(${escape(rule.kind)}\\) is a person's decision \\(${escape(rule.act)}\\): database role agent_eve is not a member of loopx_humans`,
        ),
      );
      // Recorded as the kernel's own event instead of the agent's: no better.
      await expect(rawAppend(s.agentUrl, draft(rule.kind, ids, data, 'kernel', 'kernel')), rule.act).rejects.toThrow(
        /is a person's decision/,
      );
      expect(await s.head(), rule.act).toBe(before);
      // A person's login writes the same data.
      await rawAppend(s.humanUrl, draft(rule.kind, ids, data, 'ada', 'human'));
      expect(await s.head()).toBe(before + 1);
    }
    // The same data without the deciding fields is an agent's to write.
    for (const kind of kinds) {
      const ids = fresh();
      await rawAppend(s.agentUrl, draft(kind, ids, honest(kind)));
    }
  });

  test('a goal created with no status (what older stores read as active) is a person’s; an agent may propose one paused', async () => {
    const s = await store(suite.cluster);
    const ids = { goalId: 'G50', todoId: s.todo.id };
    const { status: _, ...noStatus } = honest('goal.created', 50);
    await expect(rawAppend(s.agentUrl, draft('goal.created', ids, noStatus))).rejects.toThrow(
      /person's decision \(creating a goal active\)/,
    );
    // Through the kernel: an agent's goal starts paused, and the database takes it.
    const eve = machine(s.agentUrl, agent('agent_eve'));
    suite.open.push(eve.kernel);
    expect(createGoal(eve.kernel, { title: 'a proposal' }).status).toBe('paused');
  });

  test('an unknown kind and data that does not fit its kind are refused with what is wrong, whoever is not the owner', async () => {
    const s = await store(suite.cluster);
    const ids = { goalId: s.goal.id, todoId: s.todo.id };
    const before = await s.head();
    const bad: [string, Record<string, unknown>, RegExp][] = [
      ['todo.teleported', { to: 'mars' }, /event \d+ has kind todo\.teleported, which loopx does not write/],
      ['todo.renewed', {}, /\(todo\.renewed\): its data does not fit todo\.renewed: leaseExpiresAt: missing/],
      ['todo.renewed', { leaseExpiresAt: 42 }, /fit todo\.renewed: leaseExpiresAt: expected string, got number/],
      ['todo.added', { ...honest('todo.added', 60), priority: 1.5 }, /fit todo\.added: priority: expected an integer, got 1\.5/],
      ['todo.added', { ...honest('todo.added', 61), dependsOn: ['T1', 7] }, /fit todo\.added: dependsOn\.1: expected string/],
      ['gate.asked', { id: 'Q1', num: 1, question: null }, /fit gate\.asked: question: expected string, got null/],
      ['todo.claimed', { owner: 'agent_eve', leaseToken: 'x', leaseExpiresAt: 'y' }, /fit todo\.claimed: previousOwner: missing/],
      [
        'goal.status',
        { status: 'won', from: 'active' },
        /fit goal\.status: status: expected one of \["active", "paused", "done", "stopped"\], got "won"/,
      ],
      [
        'evidence',
        { summary: 's', kind: 'note', artifacts: [{ path: 'a', sha256: 'b', bytes: -1 }] },
        /fit evidence: artifacts\.0\.bytes: -1 is below 0/,
      ],
      ['todo.renewed', [] as unknown as Record<string, unknown>, /fit todo\.renewed: data: expected object, got array/],
    ];
    for (const [kind, data, message] of bad) {
      await expect(rawAppend(s.agentUrl, draft(kind, ids, data)), kind).rejects.toThrow(message);
      await expect(rawAppend(s.humanUrl, draft(kind, ids, data, 'ada', 'human')), kind).rejects.toThrow(message);
    }
    expect(await s.head()).toBe(before);
  });

  test("an honest agent's work through the agents' login is accepted, the kernel's next occurrence with its check too", async () => {
    const s = await store(suite.cluster);
    const eve = machine(s.agentUrl, agent('agent_eve'));
    suite.open.push(eve.kernel);
    const mine = addTodo(eve.kernel, { goalId: s.goal.id, title: 'write the docs' });
    claimTodo(eve.kernel, mine.id);
    addEvidence(eve.kernel, { todoId: mine.id, summary: 'wrote them' });
    shipTodo(eve.kernel, mine.id);
    const other = addTodo(eve.kernel, { goalId: s.goal.id, title: 'not needed' });
    killTodo(eve.kernel, other.id, 'duplicate');
    claimTodo(eve.kernel, s.todo.id);
    addMonitor(eve.kernel, { todoId: s.todo.id, afterSeconds: 60 });
    setGoalStatus(eve.kernel, s.goal.id, 'paused');
    setGoalStatus(eve.kernel, s.goal.id, 'active');
    // A recurring todo with a person's check: shipping it adds the next occurrence, the kernel's, with that check.
    const daily = addTodo(s.person.kernel, { goalId: s.goal.id, title: 'daily', check: 'false', recurrence: { every: 86_400 } });
    setTodoCheck(s.person.kernel, daily.id, 'true');
    const next = { id: 'T90', num: 90, title: 'daily', detail: '', priority: 0, dependsOn: [], check: 'true', previous: daily.id };
    const ids = { goalId: s.goal.id, todoId: 'T90' };
    await rawAppend(s.agentUrl, draft('todo.added', ids, next, 'kernel', 'kernel'));
    // …but not a check its previous occurrence does not have.
    await expect(
      rawAppend(
        s.agentUrl,
        draft('todo.added', { ...ids, todoId: 'T91' }, { ...next, id: 'T91', num: 91, check: 'rm -rf /' }, 'kernel', 'kernel'),
      ),
    ).rejects.toThrow(/person's decision \(adding a todo with an acceptance check\)/);
    const log = logCopy(s.ownerUrl);
    try {
      expect(verifyChain(log)).toMatchObject({ ok: true });
      // The database's validator and the kernel's zod schemas agree: on every event of this log (a person's, with its
      // channel and proof, an agent's, the kernel's), and on each with one of its fields left out or made a list.
      const cases = history(log, { limit: 1000 }).flatMap((e) => {
        const data = e.data as Record<string, unknown>;
        const variants = Object.keys(data).flatMap((key) => {
          const { [key]: _, ...without } = data;
          return [without, { ...data, [key]: [] }];
        });
        return [data, ...variants].map((d) => ({ kind: e.kind, data: d }));
      });
      const problems = (
        await suite.cluster.sql(
          s.name,
          `SELECT loopx.payload_problem(k.schema, c.value -> 'data', '') AS problem
             FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY c JOIN loopx.event_kinds k ON k.kind = c.value ->> 'kind'
            ORDER BY c.ordinality`,
          [JSON.stringify(cases)],
        )
      ).rows.map((r) => r.problem as string | null);
      expect(problems).toHaveLength(cases.length);
      const schemas = eventDataSchemas() as Record<string, { safeParse(d: unknown): { success: boolean } }>;
      const disagree = cases.filter((c, i) => (problems[i] === null) !== schemas[c.kind]?.safeParse(c.data).success);
      expect(disagree).toEqual([]);
      expect(problems.filter((p) => p !== null).length).toBeGreaterThan(20);
    } finally {
      log.close();
    }
  });

  test('team init brings a store up to date again and again: every kind known, none stale, the checks in place', async () => {
    const s = await store(suite.cluster);
    // A store set up before these checks: doctor's `team authority` names what agents' logins may still write.
    await suite.cluster.sql(
      s.name,
      'DROP TRIGGER c_payload ON loopx.events; DROP FUNCTION loopx.check_payload(), loopx.persons_act(loopx.events)',
    );
    expect(behind(s.ownerUrl)).toEqual([
      ...PERSONS_PAYLOADS.map((r) => r.act),
      expect.stringMatching(/^events of kinds loopx does not write/),
    ]);
    await suite.cluster.sql(s.name, "INSERT INTO loopx.event_kinds VALUES ('todo.gone', '{}')");
    await suite.cluster.sql(s.name, "UPDATE loopx.event_kinds SET schema = '{}' WHERE kind = 'todo.renewed'");
    installTeamSchema({ connectionString: s.ownerUrl });
    installTeamSchema({ connectionString: s.ownerUrl });
    expect(behind(s.ownerUrl)).toEqual([]);
    const kinds = (await suite.cluster.sql(s.name, 'SELECT kind FROM loopx.event_kinds ORDER BY kind')).rows.map((r) => r.kind);
    expect(kinds).toEqual(Object.keys(eventKindSchemas()).sort());
    await expect(rawAppend(s.agentUrl, draft('todo.renewed', { goalId: s.goal.id, todoId: s.todo.id }, {}))).rejects.toThrow(
      /leaseExpiresAt: missing/,
    );
    // An agent's login cannot change what the database checks.
    const agentSql = suite.cluster.url(s.name, 'agent_eve');
    await expect(rawSqlAs(agentSql, "DELETE FROM loopx.event_kinds WHERE kind = 'todo.renewed'")).rejects.toThrow(/permission denied/);
  });
});

function behind(url: string): string[] | null {
  const pg = new SyncPg({ connectionString: url });
  try {
    return authorityBehind(pg);
  } finally {
    pg.close();
  }
}

async function rawSqlAs(url: string, text: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

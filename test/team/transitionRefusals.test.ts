import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo, addTodoInTx, blockTodo, killTodo, shipTodo } from '../../src/kernel/todos/todos';
import { claimTodo } from '../../src/kernel/todos/claims';
import { reviewPolicy, setGoalReview } from '../../src/kernel/goals/goalReview';
import { claimReviewInTx } from '../../src/kernel/todos/review';
import { recordVerdict } from '../../src/kernel/todos/verdicts';
import { listTodos } from '../../src/kernel/todos/todoQueries';
import { statusReport } from '../../src/kernel/readModels/status';
import { setAsideEvents } from '../../src/kernel/events/setAside';
import { installTeamSchema } from '../../src/kernel/team/teamStore';
import type { Kernel } from '../../src/kernel/kernel';
import type { Actor } from '../../src/kernel/events/eventTypes';
import { FakeClock, agent, human } from '../support/testKit';
import { install, loginRole, machine, newTeamStore, rawAppend, teamSuite } from './teamKit';

// Issue 38: the team store's database refuses, in the same statement as the INSERT, an event whose transition the
// kernel would refuse (team/teamTransitionSql.ts, generated from todos/todoTransitions.ts), whoever writes it with raw
// SQL: a duplicate key or id, a claim of a todo that is not ready, a ship without evidence or by a non-holder, a goal or
// todo that does not exist. Nothing is written, and every machine keeps serving.

const suite = teamSuite('transitions');
// A live lease: within the longest the kernel gives (a day), as the database also holds a lease's end to (clockRefusals.test.ts).
const FUTURE = new Date(Date.now() + 6 * 3600_000).toISOString();
const PAST = '2000-01-01T00:00:00.000Z';

type Draft = { kind: string; goalId: string | null; todoId: string | null; data: object };

async function teamStore() {
  const { name, ownerUrl } = await newTeamStore(suite.cluster);
  await loginRole(suite.cluster, 'agent_bob', 'loopx_agents');
  await loginRole(suite.cluster, 'agent_eve', 'loopx_agents');
  // Machines' clocks at the real time: rawAppend stamps events with it, and leases are judged at the event's time.
  const onMachine = (url: string, actor: Actor): Kernel => {
    const { kernel } = machine(url, actor, new FakeClock(Date.now()));
    suite.open.push(kernel);
    return kernel;
  };
  const eveUrl = suite.cluster.url(name, 'agent_eve');
  return {
    name,
    ownerUrl,
    onMachine,
    person: onMachine(ownerUrl, human),
    bob: onMachine(suite.cluster.url(name, 'agent_bob'), agent('agent_bob')),
    /** Eve's raw SQL through her agent login, the event chained onto the head correctly. */
    eve: (draft: Draft, actor = 'agent_eve') => rawAppend(eveUrl, { ...draft, actor, actorKind: 'agent' }),
  };
}

async function headSeq(name: string): Promise<number> {
  return Number((await suite.cluster.sql(name, 'SELECT seq FROM loopx.head')).rows[0].seq);
}

/** Each todo as a replica has it, and as the database's state keeps it: the same fields. */
function replicaTodos(kernel: Kernel): unknown[] {
  return kernel.read((db) =>
    db
      .prepare('SELECT id, goal_id, key, status, owner, lease_expires_at, evidence_count FROM todos ORDER BY id')
      .all()
      .map((r) => ({ ...r, evidence_count: Number(r.evidence_count) })),
  );
}

async function databaseTodos(name: string): Promise<unknown[]> {
  const rows = await suite.cluster.sql(
    name,
    'SELECT todo_id AS id, goal_id, key, status, owner, lease_expires_at, evidence_count FROM loopx.todo_state ORDER BY todo_id',
  );
  return rows.rows;
}

/** A machine answers `list` and `status` (its replica caught up with everything the database accepted). */
function serves(kernel: Kernel): { titles: string[]; statuses: Record<string, string> } {
  return kernel.read((db, now) => {
    statusReport(db, now);
    const todos = listTodos(db, new Date(now).toISOString());
    return { titles: todos.map((t) => t.title), statuses: Object.fromEntries(todos.map((t) => [t.id, t.status])) };
  });
}

const claim = (todoId: string, owner = 'agent_eve', leaseExpiresAt = FUTURE): Draft => ({
  kind: 'todo.claimed',
  goalId: 'G1',
  todoId,
  data: { owner, leaseToken: 'tok', leaseExpiresAt, previousOwner: null },
});
const ship = (todoId: string, previousOwner = 'agent_eve'): Draft => ({
  kind: 'todo.shipped',
  goalId: 'G1',
  todoId,
  data: { previousOwner },
});
const added = (id: string, goalId: string, key?: string): Draft => ({
  kind: 'todo.added',
  goalId,
  todoId: id,
  data: { id, num: Number(id.slice(1)), title: `raw ${id}`, detail: '', priority: 0, dependsOn: [], ...(key ? { key } : {}) },
});
const evidence = (todoId: string): Draft => ({
  kind: 'evidence',
  goalId: 'G1',
  todoId,
  data: { summary: 'done', kind: 'note', artifacts: [] },
});

describe.skipIf(!install)('the database refuses an illegal transition written through an agent’s login', () => {
  test('each illegal transition is refused with its reason and writes nothing; legal ones go in; every machine keeps serving', async () => {
    const s = await teamStore();
    const goal = createGoal(s.person, { title: 'ship it' });
    expect(goal.id).toBe('G1');
    s.person.write((tx) =>
      addTodoInTx(tx, goal.id, { title: 'deploy', detail: '', priority: 0, dependsOn: [], check: null, recurrence: null, key: 'deploy' }),
    );
    const [claimed, shipped, killed, blocked, open] = ['claimed', 'shipped', 'killed', 'blocked', 'open'].map(
      (title) => addTodo(s.person, { goalId: goal.id, title }).id,
    ) as [string, string, string, string, string];
    claimTodo(s.bob, claimed);
    claimTodo(s.bob, shipped);
    shipTodo(s.bob, shipped, { evidence: 'deployed and checked' });
    killTodo(s.person, killed, 'not needed');
    blockTodo(s.person, blocked, 'waiting on a vendor');

    const refusals: [string, Draft, RegExp][] = [
      ['a todo key its goal already has', added('T9', 'G1', 'deploy'), /goal G1 already has a todo with key deploy/],
      ['a todo id that exists', added(claimed, 'G1'), new RegExp(`todo ${claimed} already exists`)],
      [
        'a goal id that exists',
        {
          kind: 'goal.created',
          goalId: 'G1',
          todoId: null,
          data: {
            id: 'G1',
            num: 1,
            title: 'again',
            objective: '',
            scope: [],
            turnsPerWindow: 1,
            windowHours: 1,
            maxConcurrent: 1,
            cooldownSeconds: 0,
            status: 'paused',
          },
        },
        /goal G1 already exists/,
      ],
      ['a claim of a claimed todo', claim(claimed), new RegExp(`todo ${claimed} is claimed by agent_bob and the lease has not run out`)],
      ['a claim of a shipped todo', claim(shipped), new RegExp(`todo ${shipped} is shipped; todo\\.claimed needs it open or claimed`)],
      ['a claim of a killed todo', claim(killed), new RegExp(`todo ${killed} is killed`)],
      ['a claim of a blocked todo', claim(blocked), new RegExp(`todo ${blocked} is blocked`)],
      ['a claim in another agent’s name', claim(open, 'agent_bob'), /a claim is written by the agent it names as owner/],
      [
        'a ship by someone who does not hold the claim',
        ship(claimed, 'agent_bob'),
        new RegExp(`todo ${claimed} is claimed by agent_bob \\(or its lease ran out\\); only the holder of a live claim may ship it`),
      ],
      ['a ship of an open todo', ship(open), new RegExp(`todo ${open} is open; todo\\.shipped needs it claimed`)],
      ['a todo added to a goal that does not exist', added('T9', 'G9'), /goal G9 does not exist/],
      [
        'an event naming a todo that does not exist',
        { kind: 'todo.renewed', goalId: 'G1', todoId: 'T99', data: { leaseExpiresAt: FUTURE } },
        /todo T99 does not exist/,
      ],
    ];
    for (const [what, draft, reason] of refusals) {
      const before = await headSeq(s.name);
      await expect(s.eve(draft), what).rejects.toMatchObject({
        code: '23514',
        message: expect.stringMatching(new RegExp(`is not a legal transition: ${reason.source}`)),
      });
      expect(await headSeq(s.name), what).toBe(before);
    }

    // Legal transitions through the same login go in: a claim of an open todo, a ship without evidence refused, then
    // evidence and the ship; a claim whose lease ran out may be taken over.
    await s.eve(claim(open));
    await expect(s.eve(ship(open))).rejects.toThrow(new RegExp(`todo ${open} has no evidence; shipping needs some`));
    await s.eve(evidence(open));
    await s.eve(ship(open));
    await s.eve(claim('T1')); // the todo keyed `deploy`, open
    await s.eve({ kind: 'todo.released', goalId: 'G1', todoId: 'T1', data: { previousOwner: 'agent_eve', note: null } });

    const expected = {
      T1: 'open',
      [claimed]: 'claimed',
      [shipped]: 'shipped',
      [killed]: 'killed',
      [blocked]: 'blocked',
      [open]: 'shipped',
    };
    for (const kernel of [s.person, s.bob, s.onMachine(s.ownerUrl, human)]) {
      expect(serves(kernel).statuses).toEqual(expected);
      expect(kernel.read((db) => setAsideEvents(db))).toEqual([]);
    }
    expect(await databaseTodos(s.name)).toEqual(replicaTodos(s.bob));
  });

  test('review: an implementer may not claim, approve or judge its own change; a verdict needs the live review claim', async () => {
    const s = await teamStore();
    const goal = createGoal(s.person, { title: 'reviewed' });
    setGoalReview(s.person, goal.id, reviewPolicy({ maxRounds: 2 }));
    const todo = addTodo(s.person, { goalId: goal.id, title: 'parse' }).id;
    // Eve implements it through raw SQL, legally: claim, evidence, submit.
    await s.eve(claim(todo));
    await s.eve(evidence(todo));
    const scope = { base: null, head: null, diffHash: null, files: [] };
    await s.eve({
      kind: 'todo.submitted',
      goalId: 'G1',
      todoId: todo,
      data: { previousOwner: 'agent_eve', round: 1, host: null, scope, validation: 'ran it' },
    });
    const verdict = (kind: string): Draft => ({
      kind,
      goalId: 'G1',
      todoId: todo,
      data: { previousOwner: null, round: 1, summary: 'fine', findings: [], scope, host: null, byPerson: false },
    });
    const reviewClaim = (owner: string): Draft => ({
      kind: 'todo.review_claimed',
      goalId: 'G1',
      todoId: todo,
      data: { owner, leaseToken: 'tok', leaseExpiresAt: FUTURE, host: null },
    });
    const refused = async (what: string, draft: Draft, reason: RegExp) => {
      const before = await headSeq(s.name);
      await expect(s.eve(draft), what).rejects.toMatchObject({ code: '23514', message: expect.stringMatching(reason) });
      expect(await headSeq(s.name), what).toBe(before);
    };
    await refused('the implementer claiming its review', reviewClaim('agent_eve'), /may not review its own change/);
    await refused(
      'the implementer approving, nobody reviewing',
      verdict('todo.approved'),
      /only its reviewer, or a person, may approve it/,
    );
    await refused('a ship of a todo in review', ship(todo), /is in_review; todo\.shipped needs it claimed/);
    // Bob claims the review through the kernel; Eve's verdict or claim over it is refused.
    s.bob.write((tx) => claimReviewInTx(tx, todo, agent('agent_bob'), null, 600));
    await refused('a verdict by someone not reviewing', verdict('todo.changes_requested'), /being reviewed by agent_bob/);
    await refused(
      'a claim over a live review',
      reviewClaim('agent_eve'),
      /being reviewed by agent_bob and the review lease has not run out/,
    );
    // Bob's verdict through the kernel goes in, and every machine serves the shipped todo.
    recordVerdict(s.bob, todo, { verdict: 'approve', summary: 'read it' });
    for (const kernel of [s.person, s.bob]) expect(serves(kernel).statuses[todo]).toBe('shipped');
    expect(await databaseTodos(s.name)).toEqual(replicaTodos(s.bob));
  });

  test('team init on a store from before the trigger builds the state from its log; an event already there that the rules refuse changes nothing', async () => {
    const s = await teamStore();
    const goal = createGoal(s.person, { title: 'ship it' });
    s.person.write((tx) =>
      addTodoInTx(tx, goal.id, { title: 'deploy', detail: '', priority: 0, dependsOn: [], check: null, recurrence: null, key: 'deploy' }),
    );
    const held = addTodo(s.person, { goalId: goal.id, title: 'held' }).id;
    claimTodo(s.bob, held);
    // A store from before: no state, no trigger. The poison goes in.
    await suite.cluster.sql(
      s.name,
      `DROP TRIGGER d_transition ON loopx.events; DROP FUNCTION loopx.check_transition();
       DROP FUNCTION loopx.apply_transition(loopx.events); DROP TABLE loopx.todo_state, loopx.goal_state`,
    );
    const poison = await s.eve(added('T9', 'G1', 'deploy'));

    installTeamSchema({ connectionString: s.ownerUrl }); // the owner runs `team init` again
    expect(await databaseTodos(s.name)).toEqual(replicaTodos(s.bob));
    expect((await databaseTodos(s.name)).map((t) => (t as { id: string }).id)).toEqual(['T1', held]);
    expect(s.bob.read((db) => setAsideEvents(db).map((e) => [e.seq, e.why]))).toEqual([
      [poison, 'goal G1 already has a todo with key deploy'],
    ]);
    await expect(s.eve(added('T8', 'G1', 'deploy'))).rejects.toThrow(/goal G1 already has a todo with key deploy/);
    await expect(s.eve(claim(held))).rejects.toThrow(new RegExp(`todo ${held} is claimed by agent_bob`));
    installTeamSchema({ connectionString: s.ownerUrl }); // idempotent
    expect(await databaseTodos(s.name)).toEqual(replicaTodos(s.bob));
  });

  test('random well-chained events from an agent’s login never leave a replica unable to serve, and the database’s state is every replica’s', async () => {
    const s = await teamStore();
    const goal = createGoal(s.person, { title: 'ship it' });
    addTodo(s.person, { goalId: goal.id, title: 'first' });
    const event = fc
      .record({
        kind: fc.constantFrom(
          'todo.added',
          'todo.claimed',
          'todo.renewed',
          'todo.released',
          'todo.shipped',
          'todo.blocked',
          'todo.killed',
          'evidence',
          'handoff.accepted',
          'goal.file_applied',
        ),
        todo: fc.integer({ min: 1, max: 6 }),
        goal: fc.constantFrom('G1', 'G1', 'G1', 'G2'),
        key: fc.constantFrom(undefined, 'a', 'b'),
        actor: fc.constantFrom('agent_eve', 'agent_bob'),
        lease: fc.constantFrom(PAST, FUTURE),
      })
      .map(({ kind, todo, goal: goalId, key, actor, lease }): [Draft, string] => {
        const todoId = `T${todo}`;
        const data: Record<string, object> = {
          'todo.added': added(todoId, goalId, key).data,
          'todo.claimed': { owner: actor, leaseToken: 'tok', leaseExpiresAt: lease, previousOwner: null },
          'todo.renewed': { leaseExpiresAt: lease },
          'todo.released': { previousOwner: actor, note: null },
          'todo.shipped': { previousOwner: actor },
          'todo.blocked': { reason: 'r', previousOwner: null },
          'todo.killed': { reason: 'r', previousOwner: null, cancelledGates: [] },
          evidence: evidence(todoId).data,
          'handoff.accepted': { id: 'H1', from: 'agent_bob', leaseToken: 'tok', leaseExpiresAt: lease },
          'goal.file_applied': { path: 'goal.md', keys: key ? { [key]: todoId } : {}, applied: '{}' },
        };
        const todoless = kind === 'goal.file_applied';
        return [{ kind, goalId, todoId: todoless ? null : todoId, data: data[kind] as object }, actor];
      });
    let refused = 0;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 10 }), async (events) => {
        for (const [draft, actor] of events) {
          try {
            await s.eve(draft, actor);
            accepted++;
          } catch (error) {
            // A refusal (integrity or privilege class), never the server failing otherwise.
            expect(String((error as { code?: string }).code)).toMatch(/^(23|42)/);
            refused++;
          }
        }
        const fresh = s.onMachine(s.ownerUrl, human); // a replica rebuilt from the whole log
        for (const kernel of [s.bob, fresh]) {
          expect(() => serves(kernel)).not.toThrow();
          expect(kernel.read((db) => setAsideEvents(db))).toEqual([]);
        }
        expect(replicaTodos(fresh)).toEqual(replicaTodos(s.bob));
        expect(await databaseTodos(s.name)).toEqual(replicaTodos(s.bob));
      }),
      { numRuns: 12, seed: 38 },
    );
    // The generator reached both sides of the rules.
    expect(accepted).toBeGreaterThan(5);
    expect(refused).toBeGreaterThan(5);
  }, 300_000);
});

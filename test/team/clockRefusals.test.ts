import { describe, expect, test } from 'vitest';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { claimTodo } from '../../src/kernel/todos/claims';
import { listTodos } from '../../src/kernel/todos/todoQueries';
import { setAsideEvents } from '../../src/kernel/events/setAside';
import { SyncPg } from '../../src/kernel/team/syncPg';
import { authorityBehind } from '../../src/kernel/team/teamInspect';
import { installTeamSchema } from '../../src/kernel/team/teamStore';
import { CLOCK_TOLERANCE_SECONDS } from '../../src/kernel/team/teamTransitionSql';
import type { Kernel } from '../../src/kernel/kernel';
import type { Actor } from '../../src/kernel/events/eventTypes';
import { FakeClock, agent, human } from '../support/testKit';
import { install, loginRole, machine, newTeamStore, rawAppend, rawAppendAll, teamSuite } from './teamKit';

// Issue 38: the rules judge a lease at the event's own time (`at`), so the database also judges that time as the event
// arrives: no more than CLOCK_TOLERANCE_SECONDS ahead of the server's clock, nor behind the log's newest event (loopx
// stamps the server's time). And the kernel's release of a claim (a turn's end) from a login that did not make the
// claim waits for the lease to run out by the server's clock. Each through an agents' login, with raw SQL.

const suite = teamSuite('clock');
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

type Draft = { kind: string; goalId: string | null; todoId: string | null; data: object; at?: string };

async function teamStore() {
  const { name, ownerUrl } = await newTeamStore(suite.cluster);
  await loginRole(suite.cluster, 'agent_bob', 'loopx_agents');
  await loginRole(suite.cluster, 'agent_eve', 'loopx_agents');
  const onMachine = (url: string, actor: Actor, clock = new FakeClock(Date.now())): Kernel => {
    const { kernel } = machine(url, actor, clock);
    suite.open.push(kernel);
    return kernel;
  };
  const bobUrl = suite.cluster.url(name, 'agent_bob');
  const eveUrl = suite.cluster.url(name, 'agent_eve');
  const person = onMachine(ownerUrl, human);
  const goal = createGoal(person, { title: 'ship it' });
  const todos = ['held', 'lapsed', 'spare'].map((title) => addTodo(person, { goalId: goal.id, title }).id) as [string, string, string];
  return {
    name,
    ownerUrl,
    eveUrl,
    onMachine,
    person,
    todos,
    bob: onMachine(bobUrl, agent('agent_bob')),
    /** Raw SQL through eve's agents' login, well chained; as an agent unless told, at this machine's time unless told. */
    eve: (draft: Draft, actor = 'agent_eve', actorKind = 'agent') => rawAppend(eveUrl, { ...draft, actor, actorKind }),
    /** The same through bob's login: the machine that made bob's claims. */
    bobRaw: (draft: Draft, actor = 'kernel', actorKind = 'kernel') => rawAppend(bobUrl, { ...draft, actor, actorKind }),
  };
}

async function headSeq(name: string): Promise<number> {
  return Number((await suite.cluster.sql(name, 'SELECT seq FROM loopx.head')).rows[0].seq);
}

const claim = (todoId: string, leaseExpiresAt: string, at?: string): Draft => ({
  kind: 'todo.claimed',
  goalId: 'G1',
  todoId,
  data: { owner: 'agent_eve', leaseToken: 'tok', leaseExpiresAt, previousOwner: null },
  ...(at ? { at } : {}),
});
const kernelRelease = (todoId: string, previousOwner: string): Draft => ({
  kind: 'todo.released',
  goalId: 'G1',
  todoId,
  data: { previousOwner, note: 'the turn ended' },
});

function statuses(kernel: Kernel): Record<string, string> {
  return kernel.read((db, now) => Object.fromEntries(listTodos(db, iso(now)).map((t) => [t.id, `${t.status} ${t.owner ?? ''}`.trim()])));
}

describe.skipIf(!install)('the database judges an event’s time and the kernel’s release as they arrive', () => {
  test('a claim stamped in the future, over a live lease, is refused with the server’s clock; one in the past or malformed too; nothing written', async () => {
    const s = await teamStore();
    const [held] = s.todos;
    claimTodo(s.bob, held); // 30 minutes, from now
    // Stamped past the lease's end, the rules at `at` would hand eve bob's live claim: the time is what is refused.
    const refusals: [string, Draft, RegExp][] = [
      [
        'a claim stamped past a live lease',
        claim(held, iso(Date.now() + 120 * MINUTE), iso(Date.now() + 31 * MINUTE)),
        new RegExp(`is ahead of the server's clock \\(.*\\) by more than ${CLOCK_TOLERANCE_SECONDS} seconds`),
      ],
      [
        'a claim stamped far in the past',
        claim(s.todos[2], iso(Date.now() + 30 * MINUTE), iso(Date.now() - 60 * MINUTE)),
        new RegExp(`is more than ${CLOCK_TOLERANCE_SECONDS} seconds before event \\d+'s time`),
      ],
      ['a time that is not one', claim(s.todos[2], iso(Date.now() + 30 * MINUTE), 'zzz'), /zzz is not a time as loopx writes one/],
      [
        'a lease a year long (the kernel gives at most a day)',
        claim(s.todos[2], iso(Date.now() + 365 * 24 * 60 * MINUTE)),
        /its lease ends at .*, more than 24 hours after the event .*; loopx gives a lease at most 24 hours/,
      ],
      ['a lease end that is not a time', claim(s.todos[2], 'forever'), /its lease end forever is not a time as loopx writes one/],
      [
        'a time in another form',
        claim(s.todos[2], iso(Date.now() + 30 * MINUTE), '2026-12-04 05:00:00'),
        /is not a time as loopx writes one/,
      ],
    ];
    for (const [what, draft, reason] of refusals) {
      const before = await headSeq(s.name);
      await expect(s.eve(draft), what).rejects.toMatchObject({
        code: '23514',
        hint: 'loopx_bad_time',
        message: expect.stringMatching(new RegExp(`has a time loopx would not write: .*${reason.source}`)),
      });
      expect(await headSeq(s.name), what).toBe(before);
    }
    // Several events in one INSERT (as a loopx write sends them): each is judged against the one before it.
    const before = await headSeq(s.name);
    const claimAt = (at: string) => ({ ...claim(s.todos[2], iso(Date.now() + 30 * MINUTE), at), actor: 'agent_eve', actorKind: 'agent' });
    await expect(
      rawAppendAll(s.eveUrl, [
        {
          kind: 'evidence',
          goalId: 'G1',
          todoId: s.todos[2],
          data: { summary: 's', kind: 'note', artifacts: [] },
          actor: 'agent_eve',
          actorKind: 'agent',
        },
        claimAt(iso(Date.now() - 60 * MINUTE)),
      ]),
    ).rejects.toThrow(new RegExp(`is more than ${CLOCK_TOLERANCE_SECONDS} seconds before event ${before + 1}'s time`));
    expect(await headSeq(s.name)).toBe(before);
    // Stamped now, the same claim meets bob's live lease; a time within the tolerance goes in.
    await expect(s.eve(claim(held, iso(Date.now() + 120 * MINUTE)))).rejects.toThrow(
      /is claimed by agent_bob and the lease has not run out/,
    );
    await s.eve(claim(s.todos[2], iso(Date.now() + 30 * MINUTE), iso(Date.now() + 5_000)));
    for (const kernel of [s.bob, s.onMachine(s.ownerUrl, human)]) {
      expect(statuses(kernel)).toMatchObject({ [held]: 'claimed agent_bob', [s.todos[2]]: 'claimed agent_eve' });
      expect(kernel.read((db) => setAsideEvents(db))).toEqual([]);
    }
  });

  test('a log whose newest event the owner stamped ahead (a pushed store, a machine whose clock runs fast) does not stop an agent’s write', async () => {
    const s = await teamStore();
    const ahead = iso(Date.now() + 10 * MINUTE);
    const evidence = { kind: 'evidence', goalId: 'G1', todoId: s.todos[2], data: { summary: 's', kind: 'note', artifacts: [] } };
    await rawAppend(s.ownerUrl, { ...evidence, actor: 'ada', actorKind: 'human', at: ahead }); // the owner is not judged
    await s.eve(claim(s.todos[2], iso(Date.now() + 30 * MINUTE))); // stamped now: behind the owner's, not behind the server
    expect(statuses(s.bob)[s.todos[2]]).toBe('claimed agent_eve');
  });

  test('the kernel’s release of another login’s live claim is refused; from the claim’s own login, or once its lease ran out by the server’s clock, it goes in', async () => {
    const s = await teamStore();
    const [held, lapsed, spare] = s.todos;
    claimTodo(s.bob, held);
    claimTodo(s.bob, spare);
    await s.eve(claim(lapsed, iso(Date.now() - 1_000))); // eve's claim, its lease already run out

    const before = await headSeq(s.name);
    await expect(s.eve(kernelRelease(held, 'agent_bob'), 'kernel', 'kernel')).rejects.toMatchObject({
      code: '23514',
      hint: 'loopx_illegal_transition',
      message: expect.stringMatching(
        new RegExp(
          `event \\d+ \\(todo\\.released\\) is not a legal transition: todo ${held} is claimed by agent_bob from another database login and its lease has not run out by the server's clock`,
        ),
      ),
    });
    expect(await headSeq(s.name)).toBe(before);
    expect(statuses(s.bob)[held]).toBe('claimed agent_bob');

    await s.bobRaw(kernelRelease(lapsed, 'agent_eve')); // another login's claim, lease over
    await s.bobRaw(kernelRelease(spare, 'agent_bob')); // its own machine's claim: a turn's end
    const fresh = s.onMachine(s.ownerUrl, human);
    for (const kernel of [s.bob, fresh]) {
      expect(statuses(kernel)).toMatchObject({ [held]: 'claimed agent_bob', [lapsed]: 'open', [spare]: 'open' });
      expect(kernel.read((db) => setAsideEvents(db))).toEqual([]);
    }
  });

  test('through loopx, a kernel whose clock runs ahead is refused team_refused in words, and its replica keeps nothing', async () => {
    const s = await teamStore();
    const [, , spare] = s.todos;
    const ahead = s.onMachine(s.eveUrl, agent('agent_eve'), new FakeClock(Date.now() + 10 * MINUTE));
    expect(() => claimTodo(ahead, spare)).toThrow(
      expect.objectContaining({
        code: 'team_refused',
        message: expect.stringMatching(/has a time loopx would not write: .* is ahead of the server's clock/),
      }),
    );
    expect(statuses(ahead)[spare]).toBe('open');
  });

  test('team init gives a store from before the rule its claims’ logins and the checks; doctor names what it lacks until then', async () => {
    const s = await teamStore();
    const [held] = s.todos;
    claimTodo(s.bob, held);
    await suite.cluster.sql(
      s.name,
      `CREATE OR REPLACE FUNCTION loopx.check_transition() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
         SET search_path = loopx, pg_temp AS $f$
       DECLARE why text := loopx.apply_transition(NEW);
       BEGIN
         IF why IS NOT NULL THEN RAISE EXCEPTION 'event % is not a legal transition: %', NEW.seq, why USING ERRCODE = 'check_violation'; END IF;
         RETURN NEW;
       END $f$;
       DROP FUNCTION loopx.time_refusal(loopx.events), loopx.arrival_refusal(loopx.events);
       ALTER TABLE loopx.todo_state DROP COLUMN claimed_by`,
    );
    expect(behind(s.ownerUrl)).toEqual([expect.stringMatching(/^events stamped ahead of the server's clock/)]);

    installTeamSchema({ connectionString: s.ownerUrl }); // the owner runs `team init` again
    installTeamSchema({ connectionString: s.ownerUrl }); // idempotent
    expect(behind(s.ownerUrl)).toEqual([]);
    const claimedBy = await suite.cluster.sql(s.name, `SELECT claimed_by FROM loopx.todo_state WHERE todo_id = '${held}'`);
    expect(claimedBy.rows).toEqual([{ claimed_by: 'agent_bob' }]);
    await expect(s.eve(kernelRelease(held, 'agent_bob'), 'kernel', 'kernel')).rejects.toThrow(/from another database login/);
    await expect(s.eve(claim(s.todos[2], iso(Date.now() + MINUTE), iso(Date.now() + 31 * MINUTE)))).rejects.toThrow(
      /ahead of the server's clock/,
    );
    await s.bobRaw(kernelRelease(held, 'agent_bob'));
  });

  test('a team store whose time check predates the lease bound says so, and the next team init installs it', async () => {
    const s = await teamStore();
    // As an older loopx installed it: times judged, lease ends not.
    await suite.cluster.sql(
      s.name,
      `CREATE OR REPLACE FUNCTION loopx.time_refusal(e loopx.events) RETURNS text LANGUAGE plpgsql AS $f$ BEGIN RETURN NULL; END $f$`,
    );
    expect(behind(s.ownerUrl)).toEqual(['claims whose lease ends more than a day after they were made']);
    installTeamSchema({ connectionString: s.ownerUrl });
    expect(behind(s.ownerUrl)).toEqual([]);
    await expect(s.eve(claim(s.todos[2], iso(Date.now() + 48 * 60 * MINUTE)))).rejects.toThrow(/more than 24 hours after the event/);
    // The longest lease the kernel gives goes in.
    await s.eve(claim(s.todos[2], iso(Date.now() + 24 * 60 * MINUTE)));
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

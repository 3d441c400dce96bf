import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo, addTodoInTx } from '../../src/kernel/todos/todos';
import { listTodos } from '../../src/kernel/todos/todoQueries';
import { markSetAsideHandled } from '../../src/kernel/logDecisions';
import { writeTeamPointer } from '../../src/kernel/team/teamPointer';
import { agent, human } from '../support/testKit';
import { loopx } from '../cli/harness';
import { install, loginRole, machine, newTeamStore, rawAppend, teamSuite } from './teamKit';

// Issue 38: an event the database accepts but no reducer can apply (a well-chained duplicate `todo.added` inserted
// through an agent's login) must not stop every machine. Each replica sets it aside (src/kernel/events/setAside.ts),
// names it in doctor, status and log verify, and serves everything else; a replica rebuilt from scratch decides the
// same; only a person's recorded decision clears the warning.

const suite = teamSuite('setaside');

/** A workspace whose store is the team store at `url` (its replica is built from the log on first use). */
function workspace(url: string): string {
  const root = mkdtempSync(join(suite.work, 'ws-'));
  mkdirSync(join(root, '.loopx'));
  writeTeamPointer(root, url);
  return root;
}

describe.skipIf(!install)('an event no replica can apply, inserted through an agent’s login', () => {
  test('every machine keeps serving and names it (seq, kind, writer); a rebuilt replica decides the same; a person’s decision clears it', async () => {
    const { name, ownerUrl } = await newTeamStore(suite.cluster);
    await loginRole(suite.cluster, 'agent_bob', 'loopx_agents');
    const agentUrl = suite.cluster.url(name, 'agent_bob');
    const person = machine(ownerUrl, human);
    suite.open.push(person.kernel);
    const goal = createGoal(person.kernel, { title: 'ship it' });
    person.kernel.write((tx) =>
      addTodoInTx(tx, goal.id, { title: 'deploy', detail: '', priority: 0, dependsOn: [], check: null, recurrence: null, key: 'deploy' }),
    );
    // A machine that has the history already (its replica caught up before the poison arrives).
    const before = workspace(ownerUrl);
    expect(loopx(['todo', 'list', '--json'], { cwd: before, env: { LOOPX_AGENT: 'claude' } }).code).toBe(0);

    // Today's database refuses this duplicate (its transition trigger, transitionRefusals.test.ts); a team store from
    // before that trigger did not, so the owner drops it here to let the poison in as such a store would.
    await suite.cluster.sql(name, 'DROP TRIGGER d_transition ON loopx.events');
    const seq = await rawAppend(agentUrl, {
      kind: 'todo.added',
      goalId: goal.id,
      todoId: 'T9',
      data: { id: 'T9', num: 9, title: 'deploy again', detail: '', priority: 0, dependsOn: [], key: 'deploy' },
      actor: 'agent_bob',
      actorKind: 'agent',
    });
    const named = new RegExp(
      `event ${seq} \\(todo\\.added, written by agent agent_bob\\) was set aside: goal ${goal.id} already has a todo with key deploy`,
    );

    // The in-process machine catches up and goes on reading and writing.
    expect(person.kernel.read((db, now) => listTodos(db, new Date(now).toISOString(), { goalId: goal.id }).map((t) => t.title))).toEqual([
      'deploy',
    ]);
    addTodo(person.kernel, { goalId: goal.id, title: 'after the poison' });

    const rebuilt = workspace(ownerUrl); // a replica built from scratch, the poison already in the log
    for (const root of [before, rebuilt]) {
      const list = loopx(['todo', 'list', '--json'], { cwd: root, env: { LOOPX_AGENT: 'claude' } });
      expect(list.code, list.stderr).toBe(0);
      expect((list.json.data as { title: string }[]).map((t) => t.title)).toEqual(['deploy', 'after the poison']);

      const status = loopx(['status', '--json'], { cwd: root, env: { LOOPX_AGENT: 'claude' } });
      expect(status.code, status.stderr).toBe(0);
      expect((status.json.data as { setAside: unknown[] }).setAside).toEqual([
        {
          seq,
          kind: 'todo.added',
          actor: 'agent_bob',
          actorKind: 'agent',
          why: `goal ${goal.id} already has a todo with key deploy`,
          handled: null,
        },
      ]);
      const statusText = loopx(['status'], { cwd: root });
      expect(statusText.code).toBe(0);
      expect(statusText.stdout).toMatch(named);

      const doctor = loopx(['doctor', '--json'], { cwd: root });
      const checks = (doctor.json.data as { checks: { name: string; level: string; detail: string }[] }).checks;
      expect(
        checks.filter((c) => c.level === 'fail'),
        doctor.stdout,
      ).toEqual([]);
      expect(checks.find((c) => c.name === 'replay')).toMatchObject({ level: 'ok' });
      expect(checks.find((c) => c.name === 'set aside')).toMatchObject({ level: 'warn', detail: expect.stringMatching(named) });

      const verify = loopx(['log', 'verify'], { cwd: root });
      expect(verify.code).toBe(0);
      expect(verify.stdout).toMatch(named);
    }

    // An agent cannot record the decision: the CLI refuses it, and so does the database for its login's raw SQL.
    const byAgent = loopx(['log', 'handled', String(seq), '--decision', 'fine', '--json'], { cwd: before, env: { LOOPX_AGENT: 'claude' } });
    expect(byAgent.code).not.toBe(0);
    expect(() => markSetAsideHandled(person.kernel.as(agent('agent_bob')), seq, 'fine')).toThrow(/human decision/);
    await expect(
      rawAppend(agentUrl, {
        kind: 'log.set_aside_handled',
        goalId: null,
        todoId: null,
        data: { seq, decision: 'fine' },
        actor: 'agent_bob',
        actorKind: 'agent',
      }),
    ).rejects.toThrow(/is a person's decision/);

    markSetAsideHandled(person.kernel, seq, 'a duplicate an agent inserted; nothing to redo');
    for (const root of [before, rebuilt, workspace(ownerUrl)]) {
      const status = loopx(['status', '--json'], { cwd: root, env: { LOOPX_AGENT: 'claude' } });
      expect((status.json.data as { setAside: unknown[] }).setAside).toEqual([]);
      const doctor = loopx(['doctor', '--json'], { cwd: root });
      const checks = (doctor.json.data as { checks: { name: string; level: string; detail: string }[] }).checks;
      expect(checks.find((c) => c.name === 'set aside')).toMatchObject({ level: 'ok' });
    }
  });
});

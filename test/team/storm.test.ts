import { describe, expect, test } from 'vitest';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { install, teamSuite } from './teamKit';
import { AGENT_ROLE, expectNothingLostNothingDoubled, runStorm, stormStore } from './stormKit';

const MACHINES = 3;
const PROCESSES_PER_MACHINE = 2;
const TODOS = 60;

const fixture = teamSuite('storm');
const { work, open } = fixture;

describe.skipIf(!install)('a storm of agent processes on several machines claiming from one goal', () => {
  test(`${MACHINES} machines × ${PROCESSES_PER_MACHINE} processes, two losing their connection at each commit: every todo claimed once, one intact chain, every replica a projection of it`, async () => {
    const storm = await stormStore(fixture.cluster, work, TODOS, MACHINES * PROCESSES_PER_MACHINE);
    open.push(storm.kernel);
    // Each faulty agent's own goal with one todo: its first commit surely meets its fault.
    const ownGoals = ['lose-after', 'lose-before'].map((fault) => {
      const own = createGoal(storm.kernel, { title: `own goal (${fault})` });
      addTodo(storm.kernel, { goalId: own.id, title: `${fault} todo` });
      return own.id;
    });

    const reports = await runStorm(work, storm, {
      machines: MACHINES,
      processesPerMachine: PROCESSES_PER_MACHINE,
      url: () => fixture.cluster.url(storm.name, AGENT_ROLE),
      // One process of the first two machines loses its connection at every claim's commit.
      env: (m, p) => ({
        STORM_FAULT: p === 0 ? (['lose-after', 'lose-before'][m] ?? '') : '',
        STORM_OWN_GOAL: p === 0 ? (ownGoals[m] ?? '') : '',
      }),
    });
    // The faulty processes did lose their connection at commits (and still claimed nothing twice).
    expect(reports.filter((r) => r.faults > 0).map((r) => r.agent)).toEqual(['agent-0-0', 'agent-1-0']);
    const shipped = reports.flatMap((r) => r.shipped);
    expect(shipped.length).toBe(TODOS + ownGoals.length);
    // The race was real: more than one machine got work.
    const machinesWithWork = new Set(reports.filter((r) => r.shipped.length > 0).map((r) => r.agent.split('-')[1]));
    expect(machinesWithWork.size).toBeGreaterThan(1);
    await expectNothingLostNothingDoubled(fixture.cluster, work, storm, reports, {
      todos: TODOS + ownGoals.length,
      machines: MACHINES,
      open,
    });
    const batches = reports.reduce((n, r) => n + r.batches, 0);
    const waited = reports.reduce((n, r) => n + r.waitedMs, 0);
    console.info(
      `storm: ${reports.length} processes, ${shipped.length * 2} claims and ships in ${Math.max(...reports.map((r) => r.ms)).toFixed(0)} ms; ${batches} bridge crossings, ${(waited / batches).toFixed(2)} ms blocked per crossing`,
    );
  });
});

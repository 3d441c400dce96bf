import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { verifyChain } from '../../src/kernel/events/verify';
import { checkReplay } from '../../src/kernel/replay';
import { human } from '../../src/kernel/testKit';
import type { Kernel } from '../../src/kernel/kernel';
import { openTeamKernel } from '../../src/kernel/team/teamStore';
import { POSTGRES_MISSING } from '../support/postgres';
import { install, logCopy, loginRole, newTeamStore, useCluster } from './teamKit';
import { bundleAgent, runAgent } from './agentProcess';

const MACHINES = 3;
const PROCESSES_PER_MACHINE = 2;
const TODOS = 60;

const work = mkdtempSync(join(tmpdir(), 'loopx-storm-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const open: Kernel[] = [];
afterEach(() => {
  for (const kernel of open.splice(0)) kernel.close();
});

if (!install) test.skip(POSTGRES_MISSING, () => {});

const fixture = useCluster();

describe.skipIf(!install)('a storm of agent processes on several machines claiming from one goal', () => {
  test(`${MACHINES} machines × ${PROCESSES_PER_MACHINE} processes, two losing their connection at each commit: every todo claimed once, one intact chain, every replica a projection of it`, async () => {
    const { name, ownerUrl } = await newTeamStore(fixture.cluster);
    await loginRole(fixture.cluster, 'storm_agent', 'loopx_agents');
    const { kernel } = openTeamKernel(work, {
      replicaPath: join(work, 'owner.db'),
      connection: { connectionString: ownerUrl },
      actor: human,
    });
    open.push(kernel);
    const goal = createGoal(kernel, { title: 'storm', turnsPerWindow: 1000, maxConcurrent: MACHINES * PROCESSES_PER_MACHINE });
    for (let i = 0; i < TODOS; i++) addTodo(kernel, { goalId: goal.id, title: `todo ${i}` });
    // Each faulty agent's own goal with one todo: its first commit surely meets its fault.
    const ownGoals = ['lose-after', 'lose-before'].map((fault) => {
      const own = createGoal(kernel, { title: `own goal (${fault})` });
      addTodo(kernel, { goalId: own.id, title: `${fault} todo` });
      return own.id;
    });

    const script = bundleAgent(work);
    const startAt = String(Date.now() + 4000);
    const agents = [];
    for (let m = 0; m < MACHINES; m++)
      for (let p = 0; p < PROCESSES_PER_MACHINE; p++)
        agents.push(
          runAgent(script, {
            STORM_REPLICA: join(work, `machine-${m}`, 'replica.db'),
            STORM_ROOT: join(work, `machine-${m}`),
            STORM_AGENT: `agent-${m}-${p}`,
            STORM_GOAL: goal.id,
            STORM_START_AT: startAt,
            LOOPX_DATABASE_URL: fixture.cluster.url(name, 'storm_agent'),
            // One process of the first two machines loses its connection at every claim's commit.
            STORM_FAULT: p === 0 ? (['lose-after', 'lose-before'][m] ?? '') : '',
            STORM_OWN_GOAL: p === 0 ? (ownGoals[m] ?? '') : '',
          }),
        );
    const reports = await Promise.all(agents);
    // The faulty processes did lose their connection at commits (and still claimed nothing twice).
    expect(reports.filter((r) => r.faults > 0).map((r) => r.agent)).toEqual(['agent-0-0', 'agent-1-0']);
    const shipped = reports.flatMap((r) => r.shipped);
    expect(reports.flatMap((r) => r.refusals)).toEqual([]);
    expect(shipped.length).toBe(TODOS + ownGoals.length);
    expect(new Set(shipped).size).toBe(TODOS + ownGoals.length);
    // The race was real: more than one machine got work.
    const machinesWithWork = new Set(reports.filter((r) => r.shipped.length > 0).map((r) => r.agent.split('-')[1]));
    expect(machinesWithWork.size).toBeGreaterThan(1);

    const log = logCopy(ownerUrl);
    try {
      expect(verifyChain(log)).toMatchObject({ ok: true, firstBadSeq: null });
      const claims = log.prepare(`SELECT todo_id, count(*) AS n FROM events WHERE kind = 'todo.claimed' GROUP BY todo_id`).all();
      expect(claims.length).toBe(TODOS + ownGoals.length);
      expect(claims.filter((r) => Number(r.n) !== 1)).toEqual([]);
      const mismatched = log
        .prepare(
          `SELECT c.todo_id FROM events c JOIN events s ON s.todo_id = c.todo_id AND s.kind = 'todo.shipped' WHERE c.kind = 'todo.claimed' AND c.actor <> s.actor`,
        )
        .all();
      expect(mismatched).toEqual([]);
      // Every machine's replica, once caught up, is the log replayed: same events, same tables.
      const head = Number(log.prepare('SELECT max(seq) AS n FROM events').get()?.n);
      for (let m = 0; m < MACHINES; m++) {
        const replica = openTeamKernel(join(work, `machine-${m}`), {
          replicaPath: join(work, `machine-${m}`, 'replica.db'),
          connection: { connectionString: ownerUrl },
          actor: human,
        }).kernel;
        open.push(replica);
        replica.read(() => null);
        expect(Number(replica.db.prepare('SELECT max(seq) AS n FROM events').get()?.n)).toBe(head);
        expect(checkReplay(replica.db)).toMatchObject({ ok: true });
      }
    } finally {
      log.close();
    }
    const batches = reports.reduce((n, r) => n + r.batches, 0);
    const waited = reports.reduce((n, r) => n + r.waitedMs, 0);
    console.info(
      `storm: ${reports.length} processes, ${shipped.length * 2} claims and ships in ${Math.max(...reports.map((r) => r.ms)).toFixed(0)} ms; ${batches} bridge crossings, ${(waited / batches).toFixed(2)} ms blocked per crossing`,
    );
  });
});

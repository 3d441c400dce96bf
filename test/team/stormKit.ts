import { join } from 'node:path';
import { expect } from 'vitest';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { verifyChain } from '../../src/kernel/events/verify';
import { checkReplay } from '../../src/kernel/replay';
import { human } from '../support/testKit';
import type { Kernel } from '../../src/kernel/kernel';
import { openTeamKernel } from '../../src/kernel/team/teamStore';
import type { PgCluster } from '../support/postgres';
import { logCopy, loginRole, newTeamStore } from './teamKit';
import { type AgentReport, bundleAgent, runAgent } from './agentProcess';

/**
 * The storm shared by storm.test.ts and the fault tests: a team store with one goal of todos, agent processes on
 * simulated machines (a replica file each, two processes per machine) claiming and shipping them, and the one check
 * every such test ends with: nothing lost, nothing applied twice.
 */

export const AGENT_ROLE = 'storm_agent';

export interface Storm {
  name: string;
  ownerUrl: string;
  goalId: string;
  /** The owner's kernel (closed by the caller's `open` list). */
  kernel: Kernel;
}

/** A fresh team store with a goal of `todos` todos, an agents' login, and `extraGoals` goals of one todo each. */
export async function stormStore(cluster: PgCluster, work: string, todos: number, maxConcurrent: number): Promise<Storm> {
  const { name, ownerUrl } = await newTeamStore(cluster);
  await loginRole(cluster, AGENT_ROLE, 'loopx_agents');
  const { kernel } = openTeamKernel(work, {
    replicaPath: join(work, `owner-${name}.db`),
    connection: { connectionString: ownerUrl },
    actor: human,
  });
  const goal = createGoal(kernel, { title: 'storm', turnsPerWindow: 10 * todos, maxConcurrent });
  for (let i = 0; i < todos; i++) addTodo(kernel, { goalId: goal.id, title: `todo ${i}` });
  return { name, ownerUrl, goalId: goal.id, kernel };
}

export interface StormAgents {
  machines: number;
  processesPerMachine: number;
  /** Each process's URL (through a proxy, say). */
  url: (machine: number, process: number) => string;
  /** More environment per process (faults, timeouts, STORM_RESILIENT). */
  env?: (machine: number, process: number) => Record<string, string>;
  /** Milliseconds from now at which all processes start claiming together. */
  startInMs?: number;
}

export function machineDir(work: string, storm: Storm, m: number): string {
  return join(work, `${storm.name}-machine-${m}`);
}

/** The agent's bundle, built once per folder (a file's tests share it). */
const bundles = new Map<string, string>();

/** Starts the agent processes; resolves with their reports once all have ended. */
export function runStorm(work: string, storm: Storm, agents: StormAgents): Promise<AgentReport[]> {
  const script = bundles.get(work) ?? bundleAgent(work);
  bundles.set(work, script);
  const startAt = String(Date.now() + (agents.startInMs ?? 4000));
  const runs: Promise<AgentReport>[] = [];
  for (let m = 0; m < agents.machines; m++)
    for (let p = 0; p < agents.processesPerMachine; p++)
      runs.push(
        runAgent(script, {
          STORM_REPLICA: join(machineDir(work, storm, m), 'replica.db'),
          STORM_ROOT: machineDir(work, storm, m),
          STORM_AGENT: `agent-${m}-${p}`,
          STORM_GOAL: storm.goalId,
          STORM_START_AT: startAt,
          LOOPX_DATABASE_URL: agents.url(m, p),
          ...agents.env?.(m, p),
        }),
      );
  return Promise.all(runs);
}

/**
 * Nothing lost, nothing applied twice: every todo of the goal (and `otherTodos` more) claimed exactly once and shipped
 * by its claimer; one chain that verifies over the PostgreSQL log; every machine's replica, caught up, the log
 * replayed; every write an agent saw succeed is in the log under its operation id; every write that failed
 * `team_unreachable` is absent, and one that failed `team_outcome_unknown` (naming its operation id) is absent or
 * landed exactly once under that id.
 */
export async function expectNothingLostNothingDoubled(
  cluster: PgCluster,
  work: string,
  storm: Storm,
  reports: AgentReport[],
  expected: { todos: number; machines: number; open: Kernel[] },
): Promise<{ writes: number; failed: Record<string, number>; landedUnknown: number }> {
  expect(reports.flatMap((r) => r.refusals)).toEqual([]);
  const shipped = reports.flatMap((r) => r.shipped);
  expect(new Set(shipped).size).toBe(shipped.length);

  const log = logCopy(storm.ownerUrl);
  try {
    expect(verifyChain(log)).toMatchObject({ ok: true, firstBadSeq: null });
    const perTodo = (kind: string) =>
      log.prepare(`SELECT todo_id, count(*) AS n, min(actor) AS actor FROM events WHERE kind = ? GROUP BY todo_id`).all(kind);
    const claims = perTodo('todo.claimed');
    expect(claims.length).toBe(expected.todos);
    expect(claims.filter((r) => Number(r.n) !== 1)).toEqual([]);
    const ships = perTodo('todo.shipped');
    expect(ships.length).toBe(expected.todos);
    expect(ships.filter((r) => Number(r.n) !== 1)).toEqual([]);
    const mismatched = log
      .prepare(
        `SELECT c.todo_id FROM events c JOIN events s ON s.todo_id = c.todo_id AND s.kind = 'todo.shipped' WHERE c.kind = 'todo.claimed' AND c.actor <> s.actor`,
      )
      .all();
    expect(mismatched).toEqual([]);
    // An agent shipped (in its own words) exactly the todos the log says it shipped, except those whose ship outcome
    // it did not know (checked below by operation id).
    const shippedBy = new Map(
      log
        .prepare(`SELECT todo_id, actor FROM events WHERE kind = 'todo.shipped'`)
        .all()
        .map((r) => [String(r.todo_id), String(r.actor)]),
    );
    for (const r of reports) for (const id of r.shipped) expect(shippedBy.get(id), id).toBe(r.agent);

    // Every machine's replica, once caught up, is the log replayed: same events, same tables.
    const head = Number(log.prepare('SELECT max(seq) AS n FROM events').get()?.n);
    for (let m = 0; m < expected.machines; m++) {
      const replica = openTeamKernel(machineDir(work, storm, m), {
        replicaPath: join(machineDir(work, storm, m), 'replica.db'),
        connection: { connectionString: storm.ownerUrl },
        actor: human,
      }).kernel;
      expected.open.push(replica);
      replica.read(() => null);
      expect(Number(replica.db.prepare('SELECT max(seq) AS n FROM events').get()?.n)).toBe(head);
      expect(checkReplay(replica.db)).toMatchObject({ ok: true });
    }
  } finally {
    log.close();
  }

  // Writes by operation id, as the server has them.
  const { rows } = await cluster.sql(
    storm.name,
    `SELECT o.op_id, e.kind, e.todo_id, e.actor FROM loopx.ops o JOIN loopx.events e ON e.op_id = o.op_id
     WHERE e.kind IN ('todo.claimed', 'todo.shipped')`,
  );
  const byOp = new Map<string, { kind: string; todo: string; actor: string }[]>();
  for (const row of rows) {
    const list = byOp.get(String(row.op_id)) ?? [];
    list.push({ kind: String(row.kind), todo: String(row.todo_id), actor: String(row.actor) });
    byOp.set(String(row.op_id), list);
  }
  const failed: Record<string, number> = {};
  let landedUnknown = 0;
  let writes = 0;
  for (const r of reports)
    for (const w of r.writes) {
      writes++;
      const kind = w.op === 'claim' ? 'todo.claimed' : 'todo.shipped';
      const landed = byOp.get(w.opId) ?? [];
      const what = `${r.agent} ${w.op} ${w.todo ?? '?'} (${w.outcome}, operation ${w.opId})`;
      if (w.outcome === 'ok') {
        expect(landed, what).toEqual([{ kind, todo: w.todo, actor: r.agent }]);
        continue;
      }
      failed[w.outcome] = (failed[w.outcome] ?? 0) + 1;
      if (w.outcome === 'team_unreachable') expect(landed, what).toEqual([]);
      else {
        // In words, with the operation id; absent, or there exactly once (one event of its kind, by this agent).
        expect(w.reportedOpId, what).toBe(w.opId);
        if (landed.length > 0) {
          landedUnknown++;
          expect(
            landed.map((e) => [e.kind, e.actor]),
            what,
          ).toEqual([[kind, r.agent]]);
        }
      }
    }
  return { writes, failed, landedUnknown };
}

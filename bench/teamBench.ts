import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Kernel } from '../src/kernel/kernel';
import { createGoal } from '../src/kernel/goals/goals';
import { addTodo } from '../src/kernel/todos/todos';
import { claimTodo, releaseTodo } from '../src/kernel/todos/claims';
import { listTodos } from '../src/kernel/todos/todoQueries';
import { SyncPg } from '../src/kernel/team/syncPg';
import { installTeamSchema, openTeamKernel } from '../src/kernel/team/teamStore';
import { findPostgres, startCluster } from '../test/support/postgres';

/**
 * Team mode's cost (`node esbuild.mjs --bench && node dist/bench/teamBench.js`): the same kernel operations on a
 * local SQLite store and on a team store (a SQLite replica over PostgreSQL on this machine, both durable: SQLite
 * synchronous=FULL, PostgreSQL fsync on), in one run, as ratios; and the synchronous bridge's own cost per crossing
 * against the same query awaited on an ordinary async client.
 */
const N = Number(process.env.BENCH_WRITES ?? 300);
const human = { name: 'ada', kind: 'human', channel: 'vscode' } as const;
const agent = { name: 'codex', kind: 'agent' } as const;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

function timeEach(n: number, fn: (i: number) => void): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

/** claim + release of one todo, N times: two writes per round, each with its event. */
function claimCycle(kernel: Kernel, todoId: string): number[] {
  return timeEach(N, () => {
    claimTodo(kernel, todoId);
    releaseTodo(kernel, todoId);
  }).map((ms) => ms / 2);
}

async function main(): Promise<void> {
  const install = findPostgres();
  if (!install) throw new Error('PostgreSQL is not installed (apt-get install postgresql): the team bench needs it');
  const work = mkdtempSync(join(tmpdir(), 'loopx-teambench-'));
  const t0 = performance.now();
  const cluster = await startCluster(install, { durable: true });
  const startup = performance.now() - t0;
  try {
    const db = await cluster.createDatabase('bench');
    const url = cluster.url(db);
    installTeamSchema({ connectionString: url });

    // SQLite alone.
    const { kernel: local } = Kernel.init(join(work, 'local'), { actor: human });
    const localGoal = createGoal(local, { title: 'bench' });
    const localTodo = addTodo(local, { goalId: localGoal.id, title: 't' });
    const localAgent = local.as(agent);
    claimCycle(localAgent, localTodo.id); // warm-up
    const sqliteWrite = median(claimCycle(localAgent, localTodo.id));
    const sqliteRead = median(timeEach(N, () => local.read((d, now) => listTodos(d, new Date(now).toISOString(), {}))));

    // Team mode: a replica file over the PostgreSQL log.
    const { kernel: team, engine } = openTeamKernel(join(work, 'team'), {
      replicaPath: join(work, 'team', 'replica.db'),
      connection: { connectionString: url },
      actor: human,
    });
    const teamGoal = createGoal(team, { title: 'bench' });
    const teamTodo = addTodo(team, { goalId: teamGoal.id, title: 't' });
    const teamAgent = team.as(agent);
    claimCycle(teamAgent, teamTodo.id);
    const before = { ...engine.pg.stats };
    const teamWrite = median(claimCycle(teamAgent, teamTodo.id));
    const crossings = engine.pg.stats.batches - before.batches;
    const blocked = engine.pg.stats.waitedMs - before.waitedMs;
    const teamRead = median(timeEach(N, () => team.read((d, now) => listTodos(d, new Date(now).toISOString(), {}))));

    // The bridge alone: one trivial statement through the worker, against the same statement awaited.
    const sync = new SyncPg({ connectionString: url });
    sync.query('SELECT 1');
    const bridged = median(timeEach(N, () => sync.query('SELECT 1')));
    sync.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('SELECT 1');
    const awaited: number[] = [];
    for (let i = 0; i < N; i++) {
      const t = performance.now();
      await client.query('SELECT 1');
      awaited.push(performance.now() - t);
    }
    await client.end();
    const direct = median(awaited);

    const f = (ms: number) => `${ms.toFixed(3)} ms`;
    console.log(`team bench (${N} rounds; ${cluster.version}; PostgreSQL on 127.0.0.1, durable)`);
    console.log(`  harness start-up (copy of the initdb template + server start): ${startup.toFixed(0)} ms`);
    console.log(
      `  write (claim or release), median: SQLite ${f(sqliteWrite)}, team ${f(teamWrite)}: ${(teamWrite / sqliteWrite).toFixed(2)}x`,
    );
    console.log(
      `  read (list todos), median: SQLite ${f(sqliteRead)}, team (catch-up query + read) ${f(teamRead)}: ${(teamRead / sqliteRead).toFixed(2)}x`,
    );
    console.log(`  bridge crossings per team write: ${(crossings / (N * 2)).toFixed(2)}, blocked per crossing ${f(blocked / crossings)}`);
    console.log(
      `  SELECT 1 through the bridge ${f(bridged)} vs awaited on an async client ${f(direct)}: bridge overhead ${f(bridged - direct)} per crossing`,
    );
    team.close();
    local.close();
  } finally {
    await cluster.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

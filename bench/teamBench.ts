import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Kernel } from '../src/kernel/kernel';
import { createGoal } from '../src/kernel/goals/goals';
import { addTodo, addTodoInTx, shipTodo } from '../src/kernel/todos/todos';
import { claimNext, claimTodo, releaseTodo } from '../src/kernel/todos/claims';
import { moveStoreIn } from '../src/kernel/team/moveIn';
import { listTodos } from '../src/kernel/todos/todoQueries';
import { SyncPg } from '../src/kernel/team/syncPg';
import { installTeamSchema, openTeamKernel } from '../src/kernel/team/teamStore';
import { findPostgres, startCluster } from '../test/support/postgres';

/**
 * Team mode's cost (`node esbuild.mjs --bench && node dist/bench/teamBench.js`): the same kernel operations on a
 * local SQLite store and on a team store (a SQLite replica over PostgreSQL on this machine, both durable: SQLite
 * synchronous=FULL, PostgreSQL fsync on), in one run, as ratios; and the synchronous bridge's own cost per crossing
 * against the same query awaited on an ordinary async client.
 *
 * Then the same at 10,000 todos (issue 25, item 8): one store built in bulk (one transaction), moved into a team store
 * event for event (moveStoreIn), so both engines start from the same state; claim and ship latency in this process
 * (median and p95), and throughput with BENCH_WRITERS processes claiming and shipping at once (writes per second).
 */
const N = Number(process.env.BENCH_WRITES ?? 300);
const BIG = Number(process.env.BENCH_TODOS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const WRITERS = Number(process.env.BENCH_WRITERS ?? 4);
const PER_WRITER = Number(process.env.BENCH_PER_WRITER ?? 50);
const human = { name: 'ada', kind: 'human', channel: 'vscode' } as const;
const agent = { name: 'codex', kind: 'agent' } as const;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))] as number;

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

/** A store of `BIG` todos in one goal, built in one transaction (a store this size through the CLI takes minutes). */
function bigStore(root: string): Kernel {
  const { kernel } = Kernel.init(root, { actor: human });
  const goal = createGoal(kernel, { title: 'big', turnsPerWindow: 100_000, maxConcurrent: 1000 });
  kernel.write((tx) => {
    for (let i = 0; i < BIG; i++)
      addTodoInTx(tx, goal.id, { title: `todo ${i}`, detail: '', priority: 2, dependsOn: [], check: null, recurrence: null });
  });
  return kernel;
}

/** Claim the next todo, then ship it: `rounds` times; each write's milliseconds. */
function claimAndShip(kernel: Kernel, rounds: number): { claim: number[]; ship: number[] } {
  const claim: number[] = [];
  const ship: number[] = [];
  for (let i = 0; i < rounds; i++) {
    let t = performance.now();
    const id = claimNext(kernel).todo.id;
    claim.push(performance.now() - t);
    t = performance.now();
    shipTodo(kernel, id, { evidence: 'bench' });
    ship.push(performance.now() - t);
  }
  return { claim, ship };
}

interface WriterReport {
  claim: number[];
  ship: number[];
}

/** A writer process (argv `writer`): opens its engine, waits for the common start, claims and ships PER_WRITER todos. */
function writer(): void {
  const env = process.env;
  const actor = { name: `bench-${env.BENCH_WRITER}`, kind: 'agent' } as const;
  const kernel =
    env.BENCH_ENGINE === 'team'
      ? openTeamKernel(env.BENCH_ROOT as string, {
          replicaPath: env.BENCH_REPLICA as string,
          connection: { connectionString: env.BENCH_URL },
          actor,
        }).kernel
      : Kernel.open(env.BENCH_ROOT as string, { actor });
  const wait = Number(env.BENCH_START_AT) - Date.now();
  if (wait > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
  const report: WriterReport = claimAndShip(kernel, PER_WRITER);
  kernel.close();
  process.stdout.write(JSON.stringify(report));
}

/** WRITERS processes at once; writes per second from the common start to the last one's end, and their latencies. */
async function throughput(env: (i: number) => Record<string, string>): Promise<{ opsPerSec: number; claim: number[]; ship: number[] }> {
  const startAt = Date.now() + 3000;
  const runs = Array.from(
    { length: WRITERS },
    (_, i) =>
      new Promise<WriterReport>((done, fail) => {
        const child = spawn(process.execPath, [__filename, 'writer'], {
          env: { ...process.env, ...env(i), BENCH_WRITER: String(i), BENCH_START_AT: String(startAt) },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('close', (code) => (code === 0 ? done(JSON.parse(out) as WriterReport) : fail(new Error(`writer ${i} exited ${code}`))));
      }),
  );
  const reports = await Promise.all(runs);
  const seconds = (Date.now() - startAt) / 1000;
  return {
    opsPerSec: (WRITERS * PER_WRITER * 2) / seconds,
    claim: reports.flatMap((r) => r.claim),
    ship: reports.flatMap((r) => r.ship),
  };
}

async function atTenThousand(work: string, url: string): Promise<void> {
  const t0 = performance.now();
  const local = bigStore(join(work, 'big-local'));
  const built = performance.now() - t0;
  const t1 = performance.now();
  const moved = moveStoreIn(local.db, { connectionString: url });
  const movedMs = performance.now() - t1;
  const t2 = performance.now();
  const { kernel: team, engine } = openTeamKernel(join(work, 'big-team'), {
    replicaPath: join(work, 'big-team', 'replica.db'),
    connection: { connectionString: url },
    actor: human,
  });
  const joinedMs = performance.now() - t2;
  const localAgent = local.as(agent);
  const teamAgent = team.as(agent);
  claimAndShip(localAgent, 10); // warm-up
  claimAndShip(teamAgent, 10);
  const sqlite = claimAndShip(localAgent, ROUNDS);
  const teamLatency = claimAndShip(teamAgent, ROUNDS);
  // Each writer process of the team side is a machine of its own: a copy of the caught-up replica.
  for (let i = 0; i < WRITERS; i++) {
    mkdirSync(join(work, `big-team-${i}`), { recursive: true });
    engine.backupTo(join(work, `big-team-${i}`, 'replica.db'));
  }
  local.close();
  const sqliteMany = await throughput(() => ({ BENCH_ENGINE: 'sqlite', BENCH_ROOT: join(work, 'big-local') }));
  const teamMany = await throughput((i) => ({
    BENCH_ENGINE: 'team',
    BENCH_ROOT: join(work, `big-team-${i}`),
    BENCH_REPLICA: join(work, `big-team-${i}`, 'replica.db'),
    BENCH_URL: url,
  }));
  team.close();

  const f = (ms: number) => `${ms.toFixed(2)} ms`;
  const row = (what: string, a: number[], b: number[]) =>
    console.log(
      `  | ${what} | ${f(median(a))} / ${f(p95(a))} | ${f(median(b))} / ${f(p95(b))} | ${(median(b) / median(a)).toFixed(2)}x / ${(p95(b) / p95(a)).toFixed(2)}x |`,
    );
  console.log(
    `\nat ${BIG.toLocaleString('en')} todos (${ROUNDS} rounds in one process; ${WRITERS} writer processes × ${PER_WRITER} claims and ships)`,
  );
  console.log(
    `  built in one transaction ${built.toFixed(0)} ms; moved in (${moved.events} events) ${movedMs.toFixed(0)} ms; a machine joining (replica rebuilt from the log) ${joinedMs.toFixed(0)} ms`,
  );
  console.log('  | figure | SQLite median / p95 | team median / p95 | team ÷ SQLite |');
  console.log('  | --- | --- | --- | --- |');
  row('claim (`claimNext`), one process', sqlite.claim, teamLatency.claim);
  row('ship (with evidence), one process', sqlite.ship, teamLatency.ship);
  row(`claim, ${WRITERS} processes at once`, sqliteMany.claim, teamMany.claim);
  row(`ship, ${WRITERS} processes at once`, sqliteMany.ship, teamMany.ship);
  console.log(
    `  | throughput, ${WRITERS} processes (claims + ships per second) | ${sqliteMany.opsPerSec.toFixed(0)} | ${teamMany.opsPerSec.toFixed(0)} | ${(teamMany.opsPerSec / sqliteMany.opsPerSec).toFixed(2)}x |`,
  );
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

    const big = await cluster.createDatabase('big');
    const bigUrl = cluster.url(big);
    installTeamSchema({ connectionString: bigUrl });
    await atTenThousand(work, bigUrl);
  } finally {
    await cluster.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'writer') writer();
else
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });

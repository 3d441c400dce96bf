import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kernel } from '../src/kernel/kernel';
import { createGoal } from '../src/kernel/goals/goals';
import { addTodo } from '../src/kernel/todos/todos';
import { listTodos } from '../src/kernel/todos/todoQueries';
import { installTeamSchema, openTeamKernel } from '../src/kernel/team/teamStore';
import { StoreWatcher } from '../src/runtime/watch';
import { findPostgres, startCluster } from '../test/support/postgres';

/**
 * Team mode live (`node esbuild.mjs --bench && node dist/bench/teamLiveBench.js`), in one run, as ratios:
 * - a read on a team store with its NOTIFY listener current (no catch-up query) against the same read paying the
 *   catch-up query, and against SQLite alone;
 * - the wake of a long-lived reader (StoreWatcher, as VS Code and `loopx run` use it) for another machine's commit
 *   through LISTEN/NOTIFY, against SQLite's file-watch wake for another process's commit on one machine. Both are
 *   timed from the other writer's return to the watcher's callback (SQLite's first look is 25 ms after a file event;
 *   a team wake comes once the replica is caught up and is looked at at once).
 */
const N = Number(process.env.BENCH_READS ?? 300);
const WAKES = Number(process.env.BENCH_WAKES ?? 30);
const human = { name: 'ada', kind: 'human', channel: 'vscode' } as const;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

function timeEach(n: number, fn: () => void): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    fn();
    out.push(performance.now() - t0);
  }
  return out;
}

/** Starts a watcher on `reader`, lets `write` commit WAKES times elsewhere, and times each wake. */
async function wakeLatency(reader: Kernel, write: (i: number) => void): Promise<number[]> {
  let woke: () => void = () => {};
  const watcher = new StoreWatcher(reader.engine.changeSignal(), () => woke()).start();
  const out: number[] = [];
  try {
    await new Promise((r) => setTimeout(r, 300)); // the listener connects
    for (let i = 0; i < WAKES; i++) {
      const wake = new Promise<void>((resolve) => (woke = resolve));
      write(i);
      const t0 = performance.now();
      await wake;
      out.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    watcher.stop();
  }
  return out;
}

async function main(): Promise<void> {
  const install = findPostgres();
  if (!install) throw new Error('PostgreSQL is not installed (apt-get install postgresql): the team bench needs it');
  const work = mkdtempSync(join(tmpdir(), 'loopx-teamlive-'));
  const cluster = await startCluster(install, { durable: true });
  try {
    const url = cluster.url(await cluster.createDatabase('live'));
    installTeamSchema({ connectionString: url });
    const read = (k: Kernel) => k.read((d, now) => listTodos(d, new Date(now).toISOString(), {}));

    const { kernel: local } = Kernel.init(join(work, 'local'), { actor: human });
    const localGoal = createGoal(local, { title: 'bench' });
    for (let i = 0; i < 20; i++) addTodo(local, { goalId: localGoal.id, title: `t${i}` });
    const sqliteRead = median(timeEach(N, () => read(local)));

    const open = (name: string) =>
      openTeamKernel(join(work, name), {
        replicaPath: join(work, name, '.loopx', 'loopx.db'),
        connection: { connectionString: url },
        actor: human,
      });
    const { kernel: team, engine } = open('here');
    const { kernel: away } = open('away');
    const teamGoal = createGoal(team, { title: 'bench' });
    for (let i = 0; i < 20; i++) addTodo(team, { goalId: teamGoal.id, title: `t${i}` });
    read(team);
    const catchUpRead = median(timeEach(N, () => read(team)));
    const watcher = new StoreWatcher(engine.changeSignal(), () => {}).start();
    const deadline = Date.now() + 10_000;
    while (!engine.listening && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 100));
    const batches = engine.pg.stats.batches;
    const liveRead = median(timeEach(N, () => read(team)));
    const queries = engine.pg.stats.batches - batches;
    watcher.stop();

    const teamWake = median(await wakeLatency(team, (i) => addTodo(away, { goalId: teamGoal.id, title: `away ${i}` })));
    const other = Kernel.open(join(work, 'local'), { actor: human });
    const sqliteWake = median(await wakeLatency(local, (i) => addTodo(other, { goalId: localGoal.id, title: `other ${i}` })));
    other.close();

    const f = (ms: number) => `${ms.toFixed(3)} ms`;
    console.log(`team live bench (${N} reads, ${WAKES} wakes; ${cluster.version}; PostgreSQL on 127.0.0.1, durable)`);
    console.log(
      `  read (list 20 todos), median: SQLite ${f(sqliteRead)}; team with the catch-up query ${f(catchUpRead)} (${(catchUpRead / sqliteRead).toFixed(2)}x); team with the listener current ${f(liveRead)} (${(liveRead / sqliteRead).toFixed(2)}x SQLite, ${(catchUpRead / liveRead).toFixed(1)}x faster than with the query; ${queries} queries in ${N} reads)`,
    );
    console.log(
      `  wake for another writer's commit, median: SQLite file watch ${f(sqliteWake)}, team LISTEN/NOTIFY ${f(teamWake)}: ${(teamWake / sqliteWake).toFixed(2)}x`,
    );
    team.close();
    away.close();
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

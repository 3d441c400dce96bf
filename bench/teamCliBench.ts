import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kernel } from '../src/kernel/kernel';
import { createGoal } from '../src/kernel/goals/goals';
import { addTodoInTx } from '../src/kernel/todos/todos';
import { type PgCluster, findPostgres, startCluster } from '../test/support/postgres';
import { loopxTty } from '../test/cli/pty';

/**
 * Team calls as an agent makes them (`node esbuild.mjs --bench && node dist/bench/teamCliBench.js`): one `bin/loopx`
 * process a call, LOOPX_AGENT=codex, on a local SQLite store and on a team store (a replica over PostgreSQL on
 * 127.0.0.1, both durable: SQLite synchronous=FULL, PostgreSQL with fsync) holding the same BENCH_TODOS todos (300),
 * interleaved call by call beside a bare `node -e 0`; medians of BENCH_RUNS (15). The agents' login authenticates with
 * a password over SCRAM (pg_hba `scram-sha-256` for it, its password in a PGPASSFILE), as docs/team.md sets one up;
 * BENCH_TRUST=1 adds a team store reached without a password (trust), to see what authentication costs.
 *
 * Each call runs with LOOPX_TIMING=1: bin/loopx's line (start-up, bundle load, command) and, on the team store, the
 * team path's own line (teamTiming.ts: the pg module, the worker, connect + auth, each batch, the replica's work).
 */
const TODOS = Number(process.env.BENCH_TODOS ?? 300);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const loopx = join(__dirname, '..', '..', 'bin', 'loopx');
// BENCH_BEFORE: another build's bin/loopx (a copy of an earlier checkout's bin/ and dist/), run on a team store of its
// own, interleaved with this one: a before/after comparison in one run.
const before = process.env.BENCH_BEFORE;
// BENCH_NODE: the Node that runs each call and the bare start beside them (default: the one running the bench), e.g.
// `BENCH_NODE=$(node scripts/node22.mjs)`: the bench itself, its seeding and its PostgreSQL, stay on this one.
const nodeForCalls = process.env.BENCH_NODE ?? process.execPath;
const human = { name: 'ada', kind: 'human', channel: 'vscode' } as const;
const median = (xs: number[]) => (xs.length ? ([...xs].sort((a, b) => a - b)[xs.length >> 1] as number) : NaN);

interface Call {
  wallMs: number;
  stdout: string;
  timing: Record<string, unknown>;
  team: Record<string, number> | null;
}

function call(bin: string, cwd: string, env: NodeJS.ProcessEnv, args: string[]): Call {
  const t0 = performance.now();
  const r = spawnSync(nodeForCalls, [bin, ...args], { cwd, env: { ...env, LOOPX_TIMING: '1' }, encoding: 'utf8' });
  const wallMs = performance.now() - t0;
  if (r.status !== 0) throw new Error(`loopx ${args.join(' ')} in ${cwd}: exit ${r.status}\n${r.stdout}\n${r.stderr}`);
  let timing: Record<string, unknown> = {};
  let team: Record<string, number> | null = null;
  for (const line of r.stderr.split('\n')) {
    if (line.startsWith('{"startUpMs"')) timing = JSON.parse(line) as Record<string, unknown>;
    if (line.startsWith('{"team"')) team = (JSON.parse(line) as { team: Record<string, number> }).team;
  }
  return { wallMs, stdout: r.stdout, timing, team };
}

/** A store of TODOS todos in one goal, built in one transaction (through the CLI this size takes minutes). */
function seed(root: string): void {
  const { kernel } = Kernel.init(root, { actor: human });
  const goal = createGoal(kernel, { title: 'bench', turnsPerWindow: 100_000, maxConcurrent: 1000 });
  kernel.write((tx) => {
    for (let i = 0; i < TODOS; i++)
      addTodoInTx(tx, goal.id, { title: `todo ${i}`, detail: '', priority: 2, dependsOn: [], check: null, recurrence: null });
  });
  kernel.close();
}

interface Side {
  name: string;
  cwd: string;
  bin: string;
  env: NodeJS.ProcessEnv;
}

/**
 * A team store of the seeded history in database `db`, pushed from a copy of `local` through the CLI as its owner,
 * and a workspace of the agents' machine joined to it (the replica built by its first call).
 */
async function teamSide(
  cluster: PgCluster,
  local: string,
  work: string,
  name: string,
  bin: string,
  scram = true,
): Promise<Side & { setupMs: number }> {
  const t = performance.now();
  const db = await cluster.createDatabase('cli');
  const cwd = join(work, name);
  mkdirSync(join(cwd, '.loopx'), { recursive: true });
  copyFileSync(join(local, '.loopx', 'loopx.db'), join(cwd, '.loopx', 'loopx.db'));
  // The owner's verbs are a person's decisions: typed at a terminal, as a person runs them.
  for (const verb of ['init', 'push']) {
    const r = loopxTty(['team', verb, '--database', cluster.url(db)], '', { cwd });
    if (r.code !== 0) throw new Error(`loopx team ${verb}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  }
  // The agents' login, with a password checked over SCRAM (trust for everyone else, as the harness sets up).
  await cluster.sql(
    'postgres',
    "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'bench_agent') THEN CREATE ROLE bench_agent LOGIN PASSWORD 'agent-secret'; END IF; END $$",
  );
  await cluster.sql('postgres', 'GRANT loopx_agents TO bench_agent');
  const hba = join(cluster.socketDir, 'data', 'pg_hba.conf');
  const rules = readFileSync(hba, 'utf8');
  if (!rules.includes('bench_agent')) writeFileSync(hba, `host all bench_agent 127.0.0.1/32 scram-sha-256\n${rules}`);
  await cluster.sql('postgres', 'SELECT pg_reload_conf()');
  const passfile = join(work, 'pgpass');
  writeFileSync(passfile, `127.0.0.1:${cluster.port}:*:bench_agent:agent-secret\n`);
  chmodSync(passfile, 0o600);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOOPX_AGENT: 'codex',
    PGPASSFILE: passfile,
    // Without SCRAM (BENCH_TRUST): the owner's login, trusted, to see what authentication costs.
    LOOPX_DATABASE_URL: scram ? `postgresql://bench_agent@127.0.0.1:${cluster.port}/${db}` : cluster.url(db),
  };
  call(bin, cwd, env, ['status', '--json']); // the replica is built from the log here
  return { name, cwd, bin, env, setupMs: performance.now() - t };
}

async function main(): Promise<void> {
  const install = findPostgres();
  if (!install) throw new Error('PostgreSQL is not installed (apt-get install postgresql): the team bench needs it');
  const work = mkdtempSync(join(tmpdir(), 'loopx-teamcli-'));
  const cluster = await startCluster(install, { durable: true });
  try {
    const local = join(work, 'local');
    let t = performance.now();
    seed(local);
    const seedMs = performance.now() - t;
    const sides: Side[] = [{ name: 'sqlite', cwd: local, bin: loopx, env: { ...process.env, LOOPX_AGENT: 'codex' } }];
    const team = await teamSide(cluster, local, work, 'team', loopx);
    sides.push(team);
    if (before) sides.push(await teamSide(cluster, local, work, 'team (before)', before));
    if (process.env.BENCH_TRUST === '1') sides.push(await teamSide(cluster, local, work, 'team (trust, no SCRAM)', loopx, false));
    // BENCH_HOLD=<file>: the sides' folders and environments written there, and the stores kept until Ctrl-C (SIGINT),
    // which ends the run without measuring (for measuring one call by hand: `env $(…) bin/loopx …` in a side's folder).
    if (process.env.BENCH_HOLD) {
      writeFileSync(
        process.env.BENCH_HOLD,
        JSON.stringify(
          sides.map(({ name, cwd, env }) => ({ name, cwd, env })),
          null,
          1,
        ),
      );
      await new Promise<void>((resolve) => process.once('SIGINT', resolve));
      return; // nothing measured: the stores were for measuring by hand (the cluster stops below)
    }

    const verbs = ['todo next', 'status', 'todo claim', 'todo ship'] as const;
    const results = new Map<string, Call[]>();
    const sink = (side: string, verb: string, c: Call) => results.set(`${side}|${verb}`, [...(results.get(`${side}|${verb}`) ?? []), c]);
    const bare: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      t = performance.now();
      spawnSync(nodeForCalls, ['-e', '0']);
      bare.push(performance.now() - t);
      for (const side of sides) {
        const run1 = (args: string[]) => call(side.bin, side.cwd, side.env, [...args, '--json']);
        sink(side.name, 'todo next', run1(['todo', 'next']));
        sink(side.name, 'status', run1(['status']));
        const claimed = run1(['todo', 'claim', '--next']);
        sink(side.name, 'todo claim', claimed);
        const id = (JSON.parse(claimed.stdout) as { data: { id: string } }).data.id;
        sink(side.name, 'todo ship', run1(['todo', 'ship', id, '--evidence', 'bench']));
      }
    }
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(
      `${TODOS} todos, medians of ${RUNS}; Node ${nodeVersion()}: node -e 0 ${median(bare).toFixed(1)} ms; seed ${seedMs.toFixed(0)} ms, ` +
        `team init + push + first call (replica built) ${team.setupMs.toFixed(0)} ms; load ${load}`,
    );
    for (const v of verbs) {
      const base = median((results.get(`sqlite|${v}`) ?? []).map((c) => c.wallMs));
      console.log(`${v}: sqlite ${base.toFixed(1)} ms`);
      for (const side of sides.slice(1)) {
        const calls = results.get(`${side.name}|${v}`) ?? [];
        const wall = median(calls.map((c) => c.wallMs));
        const parts = [...new Set(calls.flatMap((c) => Object.keys(c.team ?? {})))];
        const split = parts.map((k) => `${k} ${median(calls.map((c) => c.team?.[k] ?? 0)).toFixed(1)}`).join(', ');
        // bin/loopx's own line: when it ran (Node's start before it) and how long the verb's bundle took to load.
        const bin = (k: string) => median(calls.map((c) => Number(c.timing[k] ?? NaN))).toFixed(1);
        console.log(
          `  ${side.name}: ${wall.toFixed(1)} ms, ${(wall / base).toFixed(2)}x sqlite; binAtMs ${bin('startUpMs')}, loadMs ${bin('loadMs')}, ${split}`,
        );
      }
    }
  } finally {
    await cluster.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

/** The version of the Node that runs the calls. */
function nodeVersion(): string {
  return spawnSync(nodeForCalls, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

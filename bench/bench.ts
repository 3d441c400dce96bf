import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Kernel } from '../src/kernel/kernel';
import { createGoal } from '../src/kernel/ops/goals';
import { addTodo, blockTodo, killTodo } from '../src/kernel/ops/todos';
import { claimTodo, renewTodo, shipTodo } from '../src/kernel/ops/claims';
import { addEvidence } from '../src/kernel/ops/evidence';
import { askGate } from '../src/kernel/ops/gates';
import { verifyChain } from '../src/kernel/events/log';
import { statusReport } from '../src/kernel/queries/status';
import { chooseDriver } from '../src/kernel/db/openDb';
import { addMonitor } from '../src/kernel/ops/monitors';
import { tickMonitors } from '../src/kernel/ops/tick';
import { startTurn } from '../src/kernel/ops/turns';

/**
 * `npm run bench`: a benchmark, not a test. Seeds a store of 10,000 todos and 100,000 events, then measures
 * CLI calls as separate processes next to bare `node -e 0` in the same run (among them `monitor tick` with 100
 * monitors of which none is due), in-process claim+ship throughput, log verification, and how soon a monitor wakes
 * its todo once its condition holds. Prints a Markdown table for the README.
 */
const REPO = resolve(__dirname, '..', '..');
const LOOPX = join(REPO, 'bin', 'loopx');
const TODOS = Number(process.env.BENCH_TODOS ?? 10_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 25);
const human = { name: 'ada', kind: 'human', channel: 'vscode' } as const;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const ms = (ns: bigint) => Number(ns) / 1e6;

function seed(root: string): { seconds: number; events: number } {
  const started = process.hrtime.bigint();
  mkdirSync(root, { recursive: true });
  const { kernel } = Kernel.init(root, { actor: human });
  const agents = ['codex', 'claude', 'worker'].map((name) => kernel.as({ name, kind: 'agent' }));
  const goals = Array.from({ length: 10 }, (_, i) => createGoal(kernel, { title: `Goal ${i}`, turnsPerWindow: 100_000, maxConcurrent: 50 }).id);
  const ids: string[] = [];
  for (let i = 0; i < TODOS; i++) {
    const goalId = goals[i % goals.length] as string;
    const dependsOn = i >= 20 && i % 7 === 0 ? [ids[i - 10] as string] : [];
    ids.push(addTodo(kernel, { goalId, title: `Todo ${i}: do the thing`, detail: 'acceptance: tests pass', priority: i % 4, dependsOn }).id);
  }
  const count = () => Number(kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n);
  // Ship 80% with a realistic trail; leave the rest open, claimed, blocked or gated.
  const toShip = Math.floor(TODOS * 0.8);
  const perShip = Math.max(3, Math.ceil((EVENTS - count() - TODOS * 0.05) / toShip));
  for (let i = 0; i < toShip && count() < EVENTS; i++) {
    const a = agents[i % agents.length] as Kernel;
    const id = ids[i] as string;
    claimTodo(a, id);
    for (let k = 0; k < perShip - 3; k++) {
      if (k % 3 === 2) renewTodo(a, id);
      else addEvidence(a, { todoId: id, summary: `step ${k}` });
    }
    shipTodo(a, id, { evidence: 'tests pass' });
  }
  // Todos without dependencies (i % 7 !== 0) are claimable for the live claims and blocks below.
  const free = ids.slice(toShip).filter((_, j) => (toShip + j) % 7 !== 0);
  free.slice(0, 50).forEach((id, j) => claimTodo(agents[j % 3] as Kernel, id));
  free.slice(50, 70).forEach((id) => askGate(agents[0] as Kernel, { todoId: id, question: `ok to change ${id}?` }));
  for (const id of free.slice(70, 80)) {
    claimTodo(agents[1] as Kernel, id);
    blockTodo(agents[1] as Kernel, id, 'needs a credential');
  }
  while (count() < EVENTS) addEvidence(kernel, { goalId: goals[0] as string, summary: 'nightly report' });
  const events = count();
  kernel.close();
  return { seconds: ms(process.hrtime.bigint() - started) / 1000, events };
}

/** 100 todos waiting on checks that ran once and are next due in an hour: a tick finds nothing to do. */
async function seedMonitors(root: string): Promise<void> {
  const kernel = Kernel.open(root, { actor: human });
  try {
    const goal = createGoal(kernel, { title: 'Watches', turnsPerWindow: 100_000 }).id;
    for (let i = 0; i < 100; i++) {
      const todoId = addTodo(kernel, { goalId: goal, title: `Wait for job ${i}` }).id;
      addMonitor(kernel, { todoId, check: 'exit 1', everySeconds: 3600, timeoutSeconds: 7 * 86400 });
    }
    const first = await tickMonitors(kernel, { concurrency: 8 });
    if (first.runs.length !== 100) throw new Error(`expected 100 first runs, got ${first.runs.length}`);
  } finally {
    kernel.close();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Wake latency: a monitor checks `test -f done` every 10 s; a separate ticker process (as cron or a runner would
 * run it) sleeps until the next check each tick reports. The job "finishes" at a random moment; the latency is
 * from then to the monitor firing. Meanwhile a scheduler asks for a turn every second: none may start.
 */
async function wakeLatency(trials: number): Promise<{ latencies: number[]; turnAttempts: number; turnsStarted: number }> {
  const root = mkdtempSync(join(tmpdir(), 'loopx-bench-wake-'));
  const latencies: number[] = [];
  let turnAttempts = 0;
  let turnsStarted = 0;
  try {
    const { kernel } = Kernel.init(root, { actor: human });
    const goal = createGoal(kernel, { title: 'CI', turnsPerWindow: 1000 }).id;
    const env: NodeJS.ProcessEnv = { ...process.env, LOOPX_ROOT: root };
    delete env.LOOPX_AGENT;
    for (let trial = 0; trial < trials; trial++) {
      const flag = join(root, `done-${trial}`);
      const todoId = addTodo(kernel, { goalId: goal, title: `CI run ${trial}` }).id;
      const monitorId = addMonitor(kernel, { todoId, check: `test -f done-${trial}`, everySeconds: 10 }).id;
      const doneAt = Date.now() + 2000 + Math.random() * 10_000;
      let fired: number | undefined;
      while (fired === undefined) {
        if (Date.now() >= doneAt && !existsSync(flag)) writeFileSync(flag, '');
        const tick = spawnSync(process.execPath, [LOOPX, 'monitor', 'tick', '--json'], { cwd: root, env, encoding: 'utf8' });
        const data = JSON.parse(tick.stdout).data as { fired: string[]; nextCheckAt: string | null };
        if (data.fired.includes(monitorId)) {
          const at = kernel.read((db) => db.prepare(`SELECT at FROM events WHERE kind = 'monitor.fired' AND data LIKE ?`).get(`%"id":"${monitorId}"%`)?.at);
          fired = Date.parse(String(at));
          break;
        }
        // Until the next check: ask for a turn every second, as an eager scheduler would (it must be refused).
        const wakeAt = data.nextCheckAt ? Date.parse(data.nextCheckAt) : Date.now() + 1000;
        while (Date.now() < wakeAt) {
          if (Date.now() >= doneAt && !existsSync(flag)) writeFileSync(flag, '');
          turnAttempts++;
          try {
            startTurn(kernel.as({ name: 'bench', kind: 'agent' }), { goalId: goal, host: 'custom' });
            turnsStarted++;
          } catch {
            /* should_not_run: the todo waits on its monitor */
          }
          await sleep(Math.min(1000, Math.max(0, wakeAt - Date.now())));
        }
      }
      latencies.push((fired - doneAt) / 1000);
      killTodo(kernel, todoId, 'measured'); // ready now; the next trial must again have nothing ready
    }
    kernel.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return { latencies, turnAttempts, turnsStarted };
}

function timeProcess(args: string[], cwd: string, env: NodeJS.ProcessEnv): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const t = ms(process.hrtime.bigint() - t0);
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stdout} ${r.stderr}`);
  return t;
}

async function main(): Promise<void> {
  // BENCH_STORE keeps a seeded store between runs (for profiling); by default a fresh one is seeded and removed.
  const kept = process.env.BENCH_STORE;
  const root = kept ?? mkdtempSync(join(tmpdir(), 'loopx-bench-'));
  try {
    const seeded = kept && existsSync(Kernel.storePath(root)) ? { seconds: 0, events: -1 } : seed(root);
    if (!kept) await seedMonitors(root);
    const env: NodeJS.ProcessEnv = { ...process.env, LOOPX_AGENT: 'bench' };
    delete env.LOOPX_ROOT;
    const cases: Record<string, string[]> = {
      'node -e 0 (baseline)': ['-e', '0'],
      'loopx status --json': [LOOPX, 'status', '--json'],
      'loopx todo next --json': [LOOPX, 'todo', 'next', '--json'],
      'loopx todo claim --next --json': [LOOPX, 'todo', 'claim', '--next', '--json'],
      'loopx monitor tick --json (100 monitors, none due)': [LOOPX, 'monitor', 'tick', '--json'],
    };
    const samples: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    for (const args of Object.values(cases)) timeProcess(args, root, env); // warm the page cache
    for (let i = 0; i < RUNS; i++) for (const [name, args] of Object.entries(cases)) samples[name]?.push(timeProcess(args, root, env));
    const baseline = median(samples['node -e 0 (baseline)'] as number[]);

    const kernel = Kernel.open(root, { actor: { name: 'bench-inproc', kind: 'agent' } });
    const goal = createGoal(kernel.as(human), { title: 'throughput', turnsPerWindow: 100_000, maxConcurrent: 1000 }).id;
    const N = Number(process.env.BENCH_TX ?? 3000);
    const ids = Array.from({ length: N }, (_, i) => addTodo(kernel.as(human), { goalId: goal, title: `t${i}` }).id);
    const t0 = process.hrtime.bigint();
    for (const id of ids) {
      claimTodo(kernel, id);
      shipTodo(kernel, id, { evidence: 'ok' });
    }
    const pairsPerSecond = N / (ms(process.hrtime.bigint() - t0) / 1000);
    const v0 = process.hrtime.bigint();
    const verify = verifyChain(kernel.db);
    const verifyMs = ms(process.hrtime.bigint() - v0);
    const s0 = process.hrtime.bigint();
    statusReport(kernel.db, Date.now());
    const statusMs = ms(process.hrtime.bigint() - s0);
    kernel.close();
    const verifyCliMs = median([0, 1, 2].map(() => timeProcess([LOOPX, 'log', 'verify', '--json'], root, env)));
    const wake = await wakeLatency(Number(process.env.BENCH_WAKE_TRIALS ?? 3));

    const rows = Object.entries(samples).map(([name, xs]) => {
      const m = median(xs);
      return `| \`${name}\` | ${m.toFixed(1)} ms | ${(m / baseline).toFixed(2)}x |`;
    });
    const driver = chooseDriver();
    console.log(`\nloopx bench on Node ${process.versions.node} (${driver}), ${seeded.events} events / ${TODOS} todos (seeded in ${seeded.seconds.toFixed(1)} s), median of ${RUNS} runs\n`);
    console.log('| measure | median | vs bare node |\n| --- | --- | --- |');
    console.log(rows.join('\n'));
    console.log(`| in-process claim then ship (${N} todos, one transaction each) | ${(2 * pairsPerSecond).toFixed(0)} transactions/s (${pairsPerSecond.toFixed(0)} todos/s) | |`);
    console.log(`| in-process status report | ${statusMs.toFixed(1)} ms | |`);
    console.log(`| verify ${verify.events} events in-process | ${verifyMs.toFixed(0)} ms | |`);
    console.log(`| \`loopx log verify --json\` (whole process) | ${verifyCliMs.toFixed(0)} ms | |`);
    const sorted = [...wake.latencies].sort((a, b) => a - b);
    console.log(`| wake latency: condition true → monitor fired (check every 10 s, ${sorted.length} trials) | median ${median(sorted).toFixed(1)} s, max ${(sorted[sorted.length - 1] ?? 0).toFixed(1)} s (bound: 11 s) | |`);
    console.log(`| turns started while a todo waited on its monitor | ${wake.turnsStarted} of ${wake.turnAttempts} attempts | |`);
    if (!verify.ok) throw new Error('chain broken in bench store');
  } finally {
    if (!kept) rmSync(root, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

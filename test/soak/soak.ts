import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kernel } from '../../src/kernel/kernel';
import type { Actor } from '../../src/kernel/events/eventTypes';
import { createGoal, setGoalStatus } from '../../src/kernel/goals/goals';
import { addTodo, unblockTodo } from '../../src/kernel/todos/todos';
import { decideGate } from '../../src/kernel/gates/gates';
import { CLAIMABLE_WHERE } from '../../src/kernel/todos/todoQueries';
import { type AuditResult, type Sample, audit, sample } from './audit';
import { cpuMsOf, cpuTicks, workspaceProcesses } from './processes';
import { planBehaviours } from './plan';
import { mulberry32 } from './random';
import type { RunnerSample } from './memory';

/**
 * The soak: `loopx run` left alone with real processes, as a person who starts it on Friday and reads the result on
 * Monday would. Two goals (one with an acceptance check and room for two turns at once, one with a small budget), a
 * scripted agent with every behaviour of a real one (agent.mjs), a person deciding gates, unblocking and adding
 * todos, kill -9 of the runner now and then, a second runner for a while, a separate `monitor tick` loop; then an
 * audit of the invariants from the store (audit.ts), idle CPU, memory over time and store growth per turn.
 */
export interface SoakOptions {
  /** The repository: bin/loopx and test/soak/agent.mjs. */
  repo: string;
  /** How long the runners are left alone. */
  seconds: number;
  seed: number;
  /** kill -9 of the main runner every this many seconds (a random time between the two); null: never (one runner lives the whole run). */
  killEvery: [number, number] | null;
  /** The second runner runs between these fractions of the run. */
  secondRunner: [number, number];
  turnLimitSeconds: number;
  /** How often the person looks (decides gates, unblocks, adds todos). */
  personEverySeconds: number;
  /** Budget of the small goal, per hour. */
  smallBudget: number;
  /** The Features goal's budget per hour and turns at once (1000 and 2 by default): more of both, more turns an hour. */
  features?: { perHour: number; atOnce: number };
  /** How long the idle runner is measured at the end. */
  idleSeconds: number;
  /** Keep the workspace (always kept when the audit fails). */
  keep: boolean;
  log(line: string): void;
}

export type MemorySample = RunnerSample;

export interface RunnerLife {
  name: string;
  pid: number;
  startedAt: number;
  endedAt: number | null;
  how: 'killed' | 'stopped' | 'running';
  turnsStarted: number;
  /** Turns it runs now (its own and adopted ones), from its output. */
  running: number;
}

export interface SoakReport {
  root: string;
  seconds: number;
  seed: number;
  audit: AuditResult;
  runners: RunnerLife[];
  kills: number;
  memory: MemorySample[];
  idle: { seconds: number; cpuPercent: number };
}

const HUMAN: Actor = { name: 'soak-person', kind: 'human', channel: 'vscode' };
/** The person keeps this many todos ready per goal: the goals never run dry, so throughput is the loop's. */
const READY_TODOS_KEPT = 6;

export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const root = mkdtempSync(join(tmpdir(), 'loopx-soak-'));
  const loopx = join(o.repo, 'bin', 'loopx');
  const env: NodeJS.ProcessEnv = { ...process.env, LOOPX_HUMAN: 'soak-person', NO_COLOR: '1', SOAK_LOOPX: loopx };
  delete env.LOOPX_AGENT;
  delete env.LOOPX_ROOT;
  const rand = mulberry32(o.seed);
  const between = ([lo, hi]: [number, number]) => lo + (hi - lo) * rand();
  setUp(root, loopx, env, o);
  const soakDir = join(root, 'soak');
  const command = [`'${process.execPath}'`, `'${join(o.repo, 'test', 'soak', 'agent.mjs')}'`, '{prompt}'].join(' ');
  const lives: RunnerLife[] = [];
  const memory: MemorySample[] = [];
  const samples: Sample[] = [];
  const kills: number[] = [];
  const processes = new Map<string, { child: ChildProcess; life: RunnerLife; exited: Promise<void> }>();
  let serial = 0;

  const startRunner = (name: string) => {
    const file = join(soakDir, `runner-${name}-${++serial}.jsonl`);
    const out = createWriteStream(file);
    const child = spawn(
      process.execPath,
      [
        loopx,
        'run',
        '--host',
        'custom',
        '--command',
        command,
        '--agent',
        name,
        '--turn-limit',
        `${o.turnLimitSeconds}s`,
        '--lease',
        '30s',
        '--json',
      ],
      { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const life: RunnerLife = {
      name,
      pid: child.pid as number,
      startedAt: Date.now(),
      endedAt: null,
      how: 'running',
      turnsStarted: 0,
      running: 0,
    };
    lives.push(life);
    let pending = '';
    child.stdout?.on('data', (d: Buffer) => {
      out.write(d);
      const lines = (pending + String(d)).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const event = /^\{"event":"(\w+)"/.exec(line)?.[1];
        if (event === 'turn_started') life.turnsStarted++;
        if (event === 'turn_started' || event === 'adopted') life.running++;
        if (event === 'turn_ended' || (event === 'recovered' && line.includes('"adopted":true'))) life.running--;
      }
    });
    child.stderr?.on('data', (d: Buffer) => out.write(d));
    const exited = new Promise<void>((done) =>
      child.on('close', () => {
        life.endedAt = Date.now();
        if (life.how === 'running') life.how = 'stopped';
        out.end();
        processes.delete(name);
        done();
      }),
    );
    processes.set(name, { child, life, exited });
  };

  const started = Date.now();
  const endAt = started + o.seconds * 1000;
  o.log(`soak: ${root}, ${o.seconds} s, seed ${o.seed}`);
  startRunner('soak-a');
  let stopping = false;
  const loops: Promise<void>[] = [];
  // kill -9 of the main runner now and then, restarted after a moment (what a crash or an OOM kill does).
  loops.push(
    (async () => {
      const killEvery = o.killEvery;
      if (!killEvery) return;
      for (;;) {
        await sleepUntil(Math.min(endAt, Date.now() + between(killEvery) * 1000), () => stopping);
        // A crash that matters: while the runner has a turn running (waiting at most a minute for one).
        const busyBy = Math.min(endAt, Date.now() + 60_000);
        await sleepUntil(busyBy, () => stopping || (processes.get('soak-a')?.life.running ?? 0) > 0);
        if (stopping || Date.now() >= endAt) return;
        const main = processes.get('soak-a');
        if (!main) continue;
        main.life.how = 'killed';
        main.child.kill('SIGKILL');
        kills.push(Date.now());
        o.log(`soak: kill -9 runner soak-a (pid ${main.life.pid}) at ${Math.round((Date.now() - started) / 1000)} s`);
        await main.exited;
        await sleepUntil(Date.now() + between([0.5, 4]) * 1000, () => stopping);
        if (!stopping) startRunner('soak-a');
      }
    })(),
  );
  // A second runner for a while: two runners on the same goals.
  loops.push(
    (async () => {
      await sleepUntil(started + o.seconds * 1000 * o.secondRunner[0], () => stopping);
      if (stopping) return;
      startRunner('soak-b');
      await sleepUntil(started + o.seconds * 1000 * o.secondRunner[1], () => stopping);
      const second = processes.get('soak-b');
      second?.child.kill('SIGTERM');
      await second?.exited;
    })(),
  );
  // A separate monitor tick loop (cron, another window).
  loops.push(
    (async () => {
      while (!stopping) {
        await runQuiet(loopx, ['monitor', 'tick'], root, env);
        await sleepUntil(Date.now() + 5000, () => stopping);
      }
    })(),
  );
  // The person, who looks now and then; and the backlog, which never runs dry (throughput is then the loop's).
  loops.push(
    (async () => {
      while (!stopping) {
        person(root, rand);
        await sleepUntil(Date.now() + o.personEverySeconds * 1000, () => stopping);
      }
    })(),
    (async () => {
      let round = 0;
      while (!stopping) {
        backlog(root, ++round);
        await sleepUntil(Date.now() + 2000, () => stopping);
      }
    })(),
  );
  // What the audit's stall check and the memory figures need, every second.
  loops.push(
    (async () => {
      let tickNo = 0;
      while (!stopping) {
        const alive = [...processes.values()].filter((p) => Date.now() - p.life.startedAt > 2000).length > 0;
        samples.push(sample(root, Date.now(), alive));
        if (tickNo++ % 2 === 0)
          for (const p of processes.values()) {
            const rss = rssKb(p.life.pid);
            const cpuMs = cpuMsOf(p.life.pid);
            if (rss) memory.push({ at: Date.now(), runner: `${p.life.name}#${p.life.pid}`, rssKb: rss, turns: p.life.turnsStarted, cpuMs });
          }
        await sleepUntil(Date.now() + 1000, () => stopping);
      }
    })(),
  );
  await sleepUntil(endAt, () => false);
  stopping = true;
  await Promise.all(loops);
  o.log('soak: stopping the runners (SIGTERM: running turns may end)');
  // A runner that is up finishes or adopts what a killed one left before it stops.
  if (!processes.has('soak-a')) startRunner('soak-a');
  await new Promise((done) => setTimeout(done, 3000));
  for (const p of processes.values()) p.child.kill('SIGTERM');
  const stopped = await Promise.race([
    Promise.all([...processes.values()].map((p) => p.exited)).then(() => true),
    new Promise<boolean>((done) => setTimeout(() => done(false), (o.turnLimitSeconds + 30) * 1000)),
  ]);
  if (!stopped) for (const p of processes.values()) p.child.kill('SIGKILL');
  const result = audit(root, { samples, kills, memory, runnersStoppedCleanly: stopped, loopx, env });
  // Whatever the audit found left behind goes now: a failed soak must not leave agents running on the machine.
  for (const pid of workspaceProcesses(root)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone meanwhile */
    }
  }
  o.log('soak: measuring an idle runner');
  const idle = await idleCpu(root, loopx, env, command, o.idleSeconds);
  const report: SoakReport = { root, seconds: o.seconds, seed: o.seed, audit: result, runners: lives, kills: kills.length, memory, idle };
  writeFileSync(join(root, 'soak-report.json'), JSON.stringify(report, null, 2));
  if (!o.keep && result.ok) rmSync(root, { recursive: true, force: true });
  return report;
}

function setUp(root: string, loopx: string, env: NodeJS.ProcessEnv, o: SoakOptions): void {
  execFileSync(process.execPath, [loopx, 'init'], { cwd: root, env, stdio: 'ignore' });
  mkdirSync(join(root, 'soak', 'flags'), { recursive: true });
  writeFileSync(join(root, 'soak', 'agents.log'), '');
  writeFileSync(join(root, 'soak', 'plan.json'), JSON.stringify({ behaviours: planBehaviours(o.seed), checkGoals: ['G1'] }));
  asPerson(root, (k) => {
    createGoal(k, {
      title: 'Features',
      objective: 'Every feature passes its acceptance check',
      turnsPerWindow: o.features?.perHour ?? 1000,
      windowHours: 1,
      maxConcurrent: o.features?.atOnce ?? 2,
      check: 'test -f "reports/$LOOPX_TODO.txt"',
    });
    createGoal(k, { title: 'Chores', turnsPerWindow: o.smallBudget, windowHours: 1, maxConcurrent: 1 });
    for (const goalId of ['G1', 'G2']) for (let i = 0; i < 6; i++) addTodo(k, { goalId, title: `${goalId} task ${i + 1}` });
  });
}

/** One look by the person: decides gates, unblocks, lets monitors' checks pass (the CI run they wait on is done). */
function person(root: string, rand: () => number): void {
  asPerson(root, (k) => {
    for (const gate of k.db.prepare(`SELECT id FROM gates WHERE status = 'pending'`).all())
      decideGate(k, String(gate.id), rand() < 0.8 ? 'approved' : 'rejected', 'decided by the soak person');
    for (const todo of k.db.prepare(`SELECT id FROM todos WHERE status = 'blocked'`).all())
      unblockTodo(k, String(todo.id), 'credentials added');
    for (const m of k.db.prepare(`SELECT todo_id FROM monitors WHERE status = 'waiting' AND kind = 'check'`).all())
      writeFileSync(join(root, 'soak', 'flags', String(m.todo_id)), 'done');
  });
}

/** A planner keeps READY_TODOS_KEPT todos ready per goal, and now and then adds one while turns run. */
function backlog(root: string, round: number): void {
  asPerson(root, (k) => {
    const at = new Date().toISOString();
    for (const goalId of ['G1', 'G2']) {
      // Ready: a turn could take it now (not waiting on a gate, a block, a monitor, a turn's hands, nor a retry).
      const ready = Number(
        k.db
          .prepare(
            `SELECT count(*) AS n FROM todos t WHERE t.goal_id = ? AND ${CLAIMABLE_WHERE}
               AND NOT EXISTS (SELECT 1 FROM turns o WHERE o.todo_id = t.id AND o.ended_at IS NULL)
               AND coalesce((SELECT u.result_kind FROM turns u WHERE u.todo_id = t.id ORDER BY u.num DESC LIMIT 1), 'validated_progress')
                   IN ('validated_progress', 'validated_completion')`,
          )
          .get(goalId, at, at)?.n,
      );
      const add = Math.max(0, READY_TODOS_KEPT - ready) + (round % 15 === 0 ? 1 : 0);
      for (let i = 0; i < add; i++) addTodo(k, { goalId, title: `${goalId} task added in round ${round}` });
    }
  });
}

function asPerson(root: string, act: (k: Kernel) => void): void {
  const k = Kernel.open(root, { actor: HUMAN });
  try {
    act(k);
  } finally {
    k.close();
  }
}

/** A runner with nothing to do (every goal paused), measured from /proc for `seconds`: its CPU share of one core. */
async function idleCpu(
  root: string,
  loopx: string,
  env: NodeJS.ProcessEnv,
  command: string,
  seconds: number,
): Promise<{ seconds: number; cpuPercent: number }> {
  asPerson(root, (k) => ['G1', 'G2'].forEach((g) => setGoalStatus(k, g, 'paused')));
  const child = spawn(process.execPath, [loopx, 'run', '--host', 'custom', '--command', command, '--agent', 'soak-idle', '--json'], {
    cwd: root,
    env,
    stdio: 'ignore',
  });
  await new Promise((done) => setTimeout(done, 3000)); // start-up is not idle time
  const before = cpuTicks(child.pid as number);
  const wall = Date.now();
  await new Promise((done) => setTimeout(done, seconds * 1000));
  const used = cpuTicks(child.pid as number) - before;
  const elapsed = (Date.now() - wall) / 1000;
  child.kill('SIGTERM');
  await new Promise((done) => child.on('close', done));
  const hz = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
  return { seconds: Math.round(elapsed), cpuPercent: (used / hz / elapsed) * 100 };
}

function rssKb(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

function runQuiet(loopx: string, args: string[], root: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((done) => spawn(process.execPath, [loopx, ...args], { cwd: root, env, stdio: 'ignore' }).on('close', () => done()));
}

/** Sleeps until `at`, waking early when `cut()` turns true (checked every 200 ms). */
async function sleepUntil(at: number, cut: () => boolean): Promise<void> {
  while (Date.now() < at && !cut()) await new Promise((done) => setTimeout(done, Math.min(200, Math.max(1, at - Date.now()))));
}

import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { openDb } from '../../src/kernel/db/openDb';
import { Kernel } from '../../src/kernel/kernel';
import { setGoalStatus } from '../../src/kernel/goals/goals';
import { approveMonitor } from '../../src/kernel/monitors/monitors';
import { listMonitors } from '../../src/kernel/monitors/monitorQueries';
import { STATE_TABLES } from '../../src/kernel/replay';
import { canonicalJson } from '../../src/kernel/events/canonical';

export const REPO = resolve(__dirname, '..', '..');
export const LOOPX = join(REPO, 'bin', 'loopx');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as the JSON envelope (only with --json). */
  json: { ok: boolean; data?: unknown; error?: { code: string; message: string; hint: string | null } };
}

/**
 * The repository's node_modules/.bin, which npm puts on PATH for `npm test`: the real Claude Code and Codex are there
 * (devDependencies), and `loopx doctor` asks each for --version and --help, 5 to 7 s a doctor call in a loaded run. A
 * test about the real agents puts them on PATH itself (test/agents/agentEnv.ts `agentBin`).
 */
const AGENT_BIN = join(REPO, 'node_modules', '.bin');

/**
 * A clean environment: no identity or root leaks in from the developer's shell, and no agent CLI from npm's PATH.
 * (No NODE_EXTRA_CA_CERTS either: every process that calls this, a test file's or the e2e's, has set it aside already:
 * scripts/registryEnv.mjs.)
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.LOOPX_AGENT;
  delete env.LOOPX_ROOT;
  if (env.PATH !== undefined) env.PATH = withoutAgentBin(env.PATH);
  return { ...env, NO_COLOR: '1', LOOPX_HUMAN: 'ada', ...extra };
}

function withoutAgentBin(path: string): string {
  return path
    .split(delimiter)
    .filter((dir) => dir === '' || resolve(dir) !== AGENT_BIN)
    .join(delimiter);
}

/** Runs bin/loopx as an agent would: a separate process, with the current Node. */
export function loopx(args: string[], options: { cwd: string; env?: Record<string, string> }): Run {
  const result = spawnSync(process.execPath, [LOOPX, ...args], { cwd: options.cwd, env: cleanEnv(options.env), encoding: 'utf8' });
  let json: Run['json'] = { ok: false };
  const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args; // after --: the command evidence run runs
  if (own.includes('--json')) {
    const lines = result.stdout.trim().split('\n');
    if (lines.length !== 1) throw new Error(`--json printed ${lines.length} lines:\n${result.stdout}\nstderr: ${result.stderr}`);
    json = JSON.parse(result.stdout);
  }
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, json };
}

export function loopxAsync(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [LOOPX, ...args], { cwd: options.cwd, env: cleanEnv(options.env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      let json: Run['json'] = { ok: false };
      try {
        json = JSON.parse(stdout);
      } catch {
        /* the caller asserts on json when it asked for it */
      }
      done({ code: code ?? -1, stdout, stderr, json });
    });
  });
}

/** inVsCode for kernel operations that wait on git (landings): the kernel stays open until they end. */
export async function inVsCodeAsync<T>(root: string, fn: (kernel: Kernel) => Promise<T>): Promise<T> {
  const kernel = Kernel.open(root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
  try {
    return await fn(kernel);
  } finally {
    kernel.close();
  }
}

/**
 * What a person does in VS Code: the extension calls the kernel in-process as the human with channel `vscode`.
 * Tests seed human decisions this way (starting a goal, approving a gate); the terminal path is in pty.ts.
 */
export function inVsCode<T>(root: string, fn: (kernel: Kernel) => T): T {
  const kernel = Kernel.open(root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
  try {
    return fn(kernel);
  } finally {
    kernel.close();
  }
}

/**
 * A person lets every monitor check that waits for them run, as VS Code's Allow Check does: for tests of what a
 * check does once it runs (tests/agents and agentChecks.test.ts test who may let it run).
 */
export function approveWaitingChecks(root: string): void {
  inVsCode(root, (kernel) => {
    for (const m of kernel.read((db) => listMonitors(db, { status: 'waiting' })))
      if (m.approval === 'pending') approveMonitor(kernel, m.id);
  });
}

/** A goal created through the CLI starts paused; a human starts it (here as in VS Code). */
export function startGoal(root: string, goalId = 'G1'): void {
  inVsCode(root, (kernel) => setGoalStatus(kernel, goalId, 'active'));
}

/**
 * A workspace with a store and goals a person made and started, each with its todos (G1, G2, … and T1, T2, … in order):
 * what a test of turns and runners starts from. `cli` runs bin/loopx there.
 */
export function goalsWorkspace(goals: { title: string; todos: string[] }[]): {
  root: string;
  cli: (args: string[], env?: Record<string, string>) => Run;
  dispose(): void;
} {
  const ws = seededWorkspace(`goals ${JSON.stringify(goals)}`, (root) => {
    const made = (args: string[]) => loopx(args, { cwd: root });
    made(['init']);
    goals.forEach((goal, i) => {
      made(['goal', 'create', '--title', goal.title]);
      startGoal(root, `G${i + 1}`); // a goal made outside VS Code and a terminal starts paused
      for (const title of goal.todos) made(['todo', 'add', '--goal', `G${i + 1}`, '--title', title]);
    });
  });
  const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: ws.root, env });
  return { ...ws, cli };
}

export function workspace(): { root: string; dispose(): void } {
  const root = mkdtempSync(join(tmpdir(), 'loopx-cli-'));
  return { root, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * Each seed seededWorkspace made in this test process, by the file's human key and `key`: removed when the process
 * ends. A test process runs file after file (vitest.config.mts, isolate: false), and a seed holds decisions signed
 * with the key of the file that made it (a started goal): under another file's key they carry no proof, and its runner
 * refuses to start a turn (seen: personHosts.test.ts in CI, `unproven_decision`).
 */
const seeds = new Map<string, string>();
process.once('exit', () => {
  for (const seed of seeds.values()) rmSync(seed, { recursive: true, force: true });
});

/**
 * A workspace as `build` leaves the folder it is given (a store made through bin/loopx, goals, todos…), made once per
 * test file and `key` and copied for every caller after the first: what a suite's tests start from when each would
 * otherwise make the same one again with several processes. `build` must leave no process on the store.
 */
export function seededWorkspace(key: string, build: (root: string) => void): { root: string; dispose(): void } {
  const mine = `${process.env.LOOPX_CONFIG_DIR}\0${key}`;
  let seed = seeds.get(mine);
  if (seed === undefined) {
    seed = mkdtempSync(join(tmpdir(), 'loopx-seed-'));
    build(seed);
    seeds.set(mine, seed);
  }
  const ws = workspace();
  copyWorkspace(seed, ws.root);
  return ws;
}

/**
 * Copies a workspace whose store no process has open: the same store, byte for byte, in another place (nothing in a
 * store names its folder). Not the WAL's index (-shm): the first open rebuilds it from the WAL, as after a restart.
 */
export function copyWorkspace(from: string, to: string): void {
  cpSync(from, to, { recursive: true, filter: (path) => !path.endsWith('-shm') });
}

/** Every row of every table, events included: equal dumps mean the store did not change. */
export function dumpStore(root: string): string {
  const db = openDb(Kernel.storePath(root));
  try {
    const tables: [string, string][] = [['events', 'seq'], ...Object.entries(STATE_TABLES)];
    return canonicalJson(
      Object.fromEntries(
        tables.map(([t, order]) => [
          t,
          db
            .prepare(`SELECT * FROM ${t} ORDER BY ${order}`)
            .all()
            .map((r) => ({ ...r })),
        ]),
      ),
    );
  } finally {
    db.close();
  }
}

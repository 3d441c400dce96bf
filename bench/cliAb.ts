import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Kernel } from '../src/kernel/kernel';
import { chooseDriver } from '../src/kernel/db/openDb';
import { createGoal } from '../src/kernel/goals/goals';
import { addTodo } from '../src/kernel/todos/todos';
import { addEvidence } from '../src/kernel/evidence/evidence';

/**
 * The whole CLI, build against build: each call a fresh process of each install's `bin/loopx` (start-up, code cache,
 * driver, the verb, exit), on its own copy of one seeded store of CLI_AB_EVENTS events (10,000). Every round runs
 * each verb once per install, the order rotating by round, so load on a shared machine hits every build alike; the
 * figure is the median of the per-round ratios to the first install (and their middle half), of the wall time and of
 * the process's CPU time (user + system, reported by a preload at exit: on a loaded machine the steadier of the two).
 * Afterwards every install's `log verify` checks every other's copy: the chain must be the same whichever build
 * wrote it.
 *
 *   node esbuild.mjs --bench && node dist/bench/cliAb.js save /tmp/before   # keep this build (bin/, dist/)
 *   … change, then node esbuild.mjs --bench …
 *   CLI_AB=before=/tmp/before,after=. node dist/bench/cliAb.js                 # Node 20, better-sqlite3
 *   CLI_AB=before=/tmp/before,after=. $(node scripts/node22.mjs) dist/bench/cliAb.js   # Node 22, node:sqlite
 *
 * CLI_AB_ROUNDS (15) timed rounds after CLI_AB_WARMUP (2) untimed ones (the first writes each build's code caches);
 * CLI_AB_VERBS=claim times only the verbs whose name has one of these words.
 */
const REPO = resolve(__dirname, '..', '..');
const ROUNDS = Number(process.env.CLI_AB_ROUNDS ?? 15);
const WARMUP = Number(process.env.CLI_AB_WARMUP ?? 2);
const EVENTS = Number(process.env.CLI_AB_EVENTS ?? 10_000);
const ALL_VERBS: Record<string, string[]> = {
  status: ['status', '--json'],
  'todo claim --next': ['todo', 'claim', '--next', '--json'],
  'log verify': ['log', 'verify', '--json'],
  // Commands that are not an agent verb's (a first word's bundle since session 43, dist/cli.js before).
  history: ['history', '--json'],
  'monitor list': ['monitor', 'list', '--json'],
};
/** CLI_AB_VERBS=claim: only the verbs whose name contains one of these words. */
const only = process.env.CLI_AB_VERBS?.split(',');
const VERBS = Object.fromEntries(Object.entries(ALL_VERBS).filter(([verb]) => !only || only.some((w) => verb.includes(w))));

interface Install {
  name: string;
  dir: string;
}

const median = (xs: number[]) => quantile(xs, 0.5);
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return (s[lo] as number) + ((s[Math.ceil(at)] as number) - (s[lo] as number)) * (at - lo);
}

/** `save DIR`: a copy of this checkout's build to compare later builds against (node_modules linked, not copied). */
function save(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(join(REPO, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(REPO, 'dist'), join(dir, 'dist'), { recursive: true, filter: (src) => !src.startsWith(join(REPO, 'dist', 'bench')) });
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  console.log(`saved the build of ${REPO} in ${dir}`);
}

/** A store of about EVENTS events: 10 goals, 400 open todos to claim, evidence for the rest of the log. */
function seed(): string {
  const root = mkdtempSync(join(tmpdir(), 'loopx-cliab-'));
  const { kernel } = Kernel.init(root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
  kernel.db.exec('PRAGMA synchronous = OFF'); // a benchmark store: no fsync per transaction while seeding
  const goals = Array.from({ length: 10 }, (_, i) => createGoal(kernel, { title: `Goal ${i}`, turnsPerWindow: 100_000 }).id);
  const todos = Array.from({ length: 400 }, (_, i) => addTodo(kernel, { goalId: goals[i % 10] as string, title: `Todo ${i}` }).id);
  const count = () => Number(kernel.db.prepare('SELECT max(seq) AS n FROM events').get()?.n);
  for (let i = 0; count() < EVENTS; i++) addEvidence(kernel, { todoId: todos[i % todos.length] as string, summary: `step ${i}` });
  kernel.close();
  return root;
}

/** Preloaded into every call: its CPU time as the last line of stderr, at exit. */
const CPU_MARK = 'loopx-cliab-cpu ';
let preload: string | undefined;
function cpuPreload(): string {
  if (preload) return preload;
  const dir = mkdtempSync(join(tmpdir(), 'loopx-cliab-preload-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  preload = join(dir, 'cpu.js');
  const report = `const u = process.cpuUsage(); process.stderr.write('\\n${CPU_MARK}' + (u.user + u.system) / 1000 + '\\n');`;
  writeFileSync(preload, `process.once('exit', () => { ${report} });\n`);
  return preload;
}

interface Timing {
  ms: number;
  cpuMs: number;
}

/** One CLI call as a fresh process: its wall and CPU time in ms, and its stdout. Throws on a non-zero exit. */
function call(install: Install, root: string, args: string[]): Timing & { stdout: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, LOOPX_AGENT: 'bench' };
  delete env.LOOPX_ROOT;
  const argv = ['--require', cpuPreload(), join(install.dir, 'bin', 'loopx'), ...args];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, argv, { cwd: root, env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${install.name}: loopx ${args.join(' ')} exited ${r.status}: ${r.stdout}${r.stderr}`);
  const cpuMs = Number(r.stderr.slice(r.stderr.lastIndexOf(CPU_MARK) + CPU_MARK.length));
  return { ms, cpuMs, stdout: r.stdout };
}

function compare(installs: Install[]): void {
  const seeded = seed();
  const roots = installs.map(() => {
    const root = mkdtempSync(join(tmpdir(), 'loopx-cliab-copy-'));
    cpSync(join(seeded, '.loopx'), join(root, '.loopx'), { recursive: true });
    return root;
  });
  const times = new Map<string, Timing[][]>(Object.keys(VERBS).map((verb) => [verb, installs.map(() => [])]));
  try {
    for (let n = 0; n < WARMUP + ROUNDS; n++) {
      const order = installs.map((_, i) => (i + n) % installs.length);
      for (const [verb, args] of Object.entries(VERBS)) {
        for (const i of order) {
          const { ms, cpuMs } = call(installs[i] as Install, roots[i] as string, args);
          if (n >= WARMUP) times.get(verb)?.[i]?.push({ ms, cpuMs });
        }
      }
    }
    const load = loadavg().map((x) => x.toFixed(1));
    console.log(
      `\nwhole-CLI A/B, Node ${process.versions.node}, ${chooseDriver()}, ${EVENTS} events; ${ROUNDS} rounds after ${WARMUP} untimed, order rotating; load ${load.join(' ')}`,
    );
    console.log(`ms: median per install; ratio: median of the per-round ratios to ${installs[0]?.name} [middle half]\n`);
    console.log(`| verb | ${installs.map((x) => x.name).join(' | ')} |`);
    console.log(`| --- | ${installs.map(() => '---').join(' | ')} |`);
    for (const [verb, perInstall] of times)
      for (const measure of ['ms', 'cpuMs'] as const) {
        const base = (perInstall[0] as Timing[]).map((t) => t[measure]);
        const cells = perInstall.map((ts, i) => {
          const xs = ts.map((t) => t[measure]);
          if (i === 0) return `${median(xs).toFixed(1)} ms`;
          const ratios = xs.map((x, k) => x / (base[k] as number));
          const range = `${quantile(ratios, 0.25).toFixed(2)}–${quantile(ratios, 0.75).toFixed(2)}`;
          return `${median(xs).toFixed(1)} ms, ${median(ratios).toFixed(2)}x [${range}]`;
        });
        console.log(`| ${verb}, ${measure === 'ms' ? 'wall' : 'CPU'} | ${cells.join(' | ')} |`);
      }
    // Each build verifies the chain every other build wrote (its claims); a broken log exits 3 and call throws.
    for (const [i, reader] of installs.entries())
      for (const [j, writer] of installs.entries()) {
        const { stdout } = call(reader, roots[j] as string, ['log', 'verify', '--json']);
        const ok = (JSON.parse(stdout) as { data: { ok: boolean } }).data.ok;
        if (!ok) throw new Error(`${reader.name} finds ${writer.name}'s log broken: ${stdout}`);
        if (i !== j) console.log(`${reader.name} verifies ${writer.name}'s log: ok`);
      }
  } finally {
    for (const root of [seeded, ...roots]) rmSync(root, { recursive: true, force: true });
  }
}

function main(): void {
  if (process.argv[2] === 'save') return save(resolve(process.argv[3] ?? join(tmpdir(), 'loopx-before')));
  const spec = process.env.CLI_AB;
  if (!spec) throw new Error('set CLI_AB=name=dir,name=dir… (the first is the baseline), or run `save DIR` first');
  const installs = spec.split(',').map((pair) => {
    const [name, dir] = pair.includes('=') ? pair.split('=') : [pair, pair];
    return { name: name as string, dir: resolve(dir as string) };
  });
  compare(installs);
}

main();

import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type CliIo, runCli } from '../src/cli/main';
import { CLI_COMMANDS } from '../src/cli/registry';
import { chooseDriver, openDb } from '../src/kernel/db/openDb';
import { Kernel } from '../src/kernel/kernel';
import type { SqliteDb } from '../src/kernel/db/sqliteDb';
import { renewTodo } from '../src/kernel/todos/claims';
import { addEvidence } from '../src/kernel/evidence/evidence';

/**
 * What each agent verb costs once the process has started: `runCli` with a captured io (open, query, format,
 * STATUS.md marking, close), timed in this process on a copy of a seeded bench store (`npm run bench` keeps them in
 * dist/bench/stores; VERB_STORES points elsewhere). The verbs and arguments are bench.ts's. Built by
 * `node esbuild.mjs --bench`; run `node dist/bench/verbCost.js` (Node 20, better-sqlite3) or
 * `LOOPX_SQLITE_DRIVER=node $(node scripts/node22.mjs) dist/bench/verbCost.js` (node:sqlite).
 *
 * - Warm (the default): VERB_ROUNDS rounds of every verb in one process after VERB_WARMUP untimed ones, median per
 *   verb, split into the close and the rest (work), with CPU time. V8 has optimised the code by then: this shows
 *   SQL and I/O more than a real call's first-run JavaScript.
 * - Cold (VERB_COLD=1): every call is a fresh process (the driver loaded before the timed call, a compile cache
 *   per verb where Node has one) that times its one runCli call.
 * - VERB_AB=other.js: two builds side by side on two copies of the store, verb by verb, the order alternating by
 *   round; reports each side's median and the median per-round ratio, and prints any answer that differs.
 * - VERB_SQL=1: time per statement (and per prepare) for each verb; VERB_DUMP=dir: each verb's first --json answer.
 *
 * Also times `kernel.close()` after a read and after writes (the last connection's WAL checkpoint and fsyncs).
 */
const REPO = resolve(__dirname, '..', '..');
const STORES = process.env.VERB_STORES ?? join(REPO, 'dist', 'bench', 'stores');
const SIZES = (process.env.VERB_TODOS ?? '1000,10000').split(',').map(Number);
const ROUNDS = Number(process.env.VERB_ROUNDS ?? 15);
const COLD = process.env.VERB_COLD === '1';
/** Untimed rounds first: the first migrates the copy; in-process, the next ones let V8 optimise what the verbs run. */
const WARMUP = Number(process.env.VERB_WARMUP ?? (COLD ? 1 : 3));
const DUMP = process.env.VERB_DUMP;
const CLOSE_SAMPLES = Number(process.env.VERB_CLOSE_SAMPLES ?? 21);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const since = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

/** Time spent in Kernel#close by the call being timed (the WAL checkpoint and fsyncs after a write). */
let closeMs = 0;
const close = Kernel.prototype.close;
Kernel.prototype.close = function (this: Kernel) {
  const t0 = process.hrtime.bigint();
  close.call(this);
  closeMs += since(t0);
};

/** VERB_SQL=1: time spent in each statement (by SQL text) during each verb, summed over the timed rounds. */
const SQL = process.env.VERB_SQL === '1';
let sqlTimes: Map<string, number> | undefined;
if (SQL) {
  const fromDb = Kernel.fromDb.bind(Kernel);
  Kernel.fromDb = (root, db, options) => {
    const prepare = db.prepare.bind(db);
    const timedDb: SqliteDb = {
      driver: db.driver,
      get isOpen() {
        return db.isOpen;
      },
      close: () => db.close(),
      exec: (sql) => timeSql(`exec ${sql}`, () => db.exec(sql)),
      prepare: (sql) => {
        const st = timeSql(`prepare ${sql}`, () => prepare(sql));
        return {
          run: (...p) => timeSql(sql, () => st.run(...p)),
          get: (...p) => timeSql(sql, () => st.get(...p)),
          all: (...p) => timeSql(sql, () => st.all(...p)),
        };
      },
    };
    return fromDb(root, timedDb, options);
  };
}
function timeSql<T>(sql: string, fn: () => T): T {
  const t0 = process.hrtime.bigint();
  try {
    return fn();
  } finally {
    if (sqlTimes) sqlTimes.set(sql, (sqlTimes.get(sql) ?? 0) + since(t0));
  }
}
const sqlByVerb = new Map<string, Map<string, number>>();

interface Sample {
  /** runCli from call to return. */
  ms: number;
  /** Of which kernel.close(). */
  closeMs: number;
  /** CPU time (user + system) of the call. */
  cpuMs: number;
  stdout: string;
}

/** One runCli call as an agent in `root`: its time and stdout. Throws on a non-zero exit. */
async function call(root: string, args: string[]): Promise<Sample> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: { ...process.env, LOOPX_AGENT: 'bench', LOOPX_ROOT: undefined },
    cwd: root,
    isTty: false,
  };
  closeMs = 0;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const code = await runCli(args, io, CLI_COMMANDS);
  const ms = since(t0);
  const cpu = process.cpuUsage(cpu0);
  if (code !== 0) throw new Error(`loopx ${args.join(' ')} exited ${code}: ${stdout} ${stderr}`);
  return { ms, closeMs, cpuMs: (cpu.user + cpu.system) / 1000, stdout };
}

/**
 * Cold: a fresh process runs the one call (this file with VERB_ONE set) and reports its runCli time. Where Node has
 * a compile cache (22.1+), each verb keeps its own, as bin/loopx keeps a code cache per command: the call then runs
 * precompiled code, as a real call does after the first.
 */
let cacheDir: string | undefined;
async function coldCall(root: string, args: string[], verb: string, file = __filename): Promise<Sample> {
  if (!cacheDir) {
    const dir = mkdtempSync(join(tmpdir(), 'loopx-verbcost-cache-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    cacheDir = dir;
  }
  const cache = JSON.stringify(join(cacheDir, `${file === __filename ? 'a' : 'b'}-${verb.replace(/\W+/g, '-')}`));
  const load = `require('node:module').enableCompileCache?.(${cache}); require(${JSON.stringify(file)});`;
  const r = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', '-e', load], {
    cwd: root,
    env: { ...process.env, VERB_ONE: JSON.stringify(args), VERB_AB: undefined },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`cold ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Sample;
}

type Timed = (verb: string, args: string[]) => Promise<string>;

/** The verbs of bench/bench.ts's measureVerbs, in its order and with its arguments. */
async function round(timed: Timed, untimed: (args: string[]) => Promise<string>, n: number): Promise<void> {
  const dataOf = (stdout: string) => (JSON.parse(stdout) as { data: { id: string; todoId?: string } }).data;
  const goal = `G${(n % 10) + 1}`;
  await timed('status', ['status', '--json']);
  await timed('todo next', ['todo', 'next', '--json']);
  await timed('todo list', ['todo', 'list', '--json']);
  await timed('goal show', ['goal', 'show', goal, '--json']);
  await timed('quota should-run', ['quota', 'should-run', '--goal', goal, '--json']);
  const id = dataOf(await timed('todo claim', ['todo', 'claim', '--next', '--json'])).id;
  await timed('todo show', ['todo', 'show', id, '--json']);
  await timed('todo renew', ['todo', 'renew', id, '--json']);
  await timed('evidence add', ['evidence', 'add', '--todo', id, '--summary', 'tests pass', '--json']);
  await timed('todo release', ['todo', 'release', id, '--note', 'pick up at step 2', '--json']);
  await untimed(['todo', 'claim', id, '--json']);
  await timed('todo ship', ['todo', 'ship', id, '--evidence', 'done', '--json']);
  await timed('gate ask', ['gate', 'ask', '--goal', 'G11', '--question', 'ok to go on?', '--json']);
  const turn = dataOf(await timed('turn start', ['turn', 'start', '--goal', goal, '--host', 'custom', '--json']));
  await untimed(['evidence', 'add', '--todo', String(turn.todoId), '--summary', 'half done', '--json']);
  await timed('turn finish', ['turn', 'finish', turn.id, '--exit-code', '0', '--json']);
  await timed('monitor tick', ['monitor', 'tick', '--json']);
}

function copyStore(todos: number): string {
  const root = mkdtempSync(join(tmpdir(), `loopx-verbcost-${todos}-`));
  cpSync(join(STORES, String(todos), '.loopx'), join(root, '.loopx'), { recursive: true });
  return root;
}

/** Per verb: medians of the whole call, its close, the rest (total - close) and its CPU time. */
interface VerbFigures {
  ms: number;
  closeMs: number;
  workMs: number;
  cpuMs: number;
}

async function measureSize(todos: number): Promise<{ verbs: Map<string, Sample[]>; close: Record<string, number> }> {
  const root = copyStore(todos);
  try {
    const verbs = new Map<string, Sample[]>();
    const run = (at: string, args: string[], verb: string) => (COLD ? coldCall(at, args, verb) : call(at, args));
    for (let n = 0; n < WARMUP + ROUNDS; n++) {
      const timed: Timed = async (verb, args) => {
        sqlTimes = SQL && n >= WARMUP ? (sqlByVerb.get(`${todos} ${verb}`) ?? new Map<string, number>()) : undefined;
        const r = await run(root, args, verb);
        if (sqlTimes) sqlByVerb.set(`${todos} ${verb}`, sqlTimes);
        sqlTimes = undefined;
        if (n >= WARMUP) verbs.set(verb, [...(verbs.get(verb) ?? []), r]); // the first rounds warm (and migrate the copy)
        if (n === 0 && DUMP) {
          mkdirSync(join(DUMP, String(todos)), { recursive: true });
          writeFileSync(join(DUMP, String(todos), `${verb.replace(/ /g, '-')}.json`), r.stdout);
        }
        return r.stdout;
      };
      await round(timed, async (args) => (await call(root, args)).stdout, n);
    }
    return { verbs, close: await closeCost(root) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** kernel.close() after opening read-only, after opening for writing without a write, and after writes. */
async function closeCost(root: string): Promise<Record<string, number>> {
  const actor = { name: 'bench', kind: 'agent' } as const;
  const claimed = JSON.parse((await call(root, ['todo', 'claim', '--next', '--json'])).stdout) as { data: { id: string } };
  const todoId = claimed.data.id;
  const cases: Record<string, (k: Kernel) => void> = {
    'read-only open': () => undefined,
    'write open, no write': () => undefined,
    'after evidence add': (k) => addEvidence(k, { todoId, summary: 'close cost' }),
    'after todo renew': (k) => renewTodo(k, todoId),
    'after 5 writes': (k) => {
      for (let i = 0; i < 5; i++) addEvidence(k, { todoId, summary: `close cost ${i}` });
    },
  };
  const out: Record<string, number> = {};
  for (const [name, work] of Object.entries(cases)) {
    const samples: number[] = [];
    for (let i = 0; i < CLOSE_SAMPLES; i++) {
      const kernel = Kernel.open(root, { actor, readOnly: name === 'read-only open' });
      work(kernel);
      const t0 = process.hrtime.bigint();
      kernel.close();
      samples.push(since(t0));
    }
    samples.sort((a, b) => a - b);
    out[name] = median(samples);
    out[`${name} (90th percentile)`] = samples[Math.floor(samples.length * 0.9)] as number;
  }
  return out;
}

/** VERB_SERVE=1: runs one call per stdin line ({ root, args }) and answers each with its Sample as one line. */
async function serve(): Promise<void> {
  const { createInterface } = await import('node:readline');
  for await (const line of createInterface({ input: process.stdin })) {
    const { root, args } = JSON.parse(line) as { root: string; args: string[] };
    process.stdout.write(`${JSON.stringify(await call(root, args))}\n`);
  }
}

/** A long-lived process that runs calls on request (this file, or another build of it, with VERB_SERVE=1). */
function server(file: string): { call: (root: string, args: string[]) => Promise<Sample>; stop: () => void } {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', file], {
    env: { ...process.env, VERB_SERVE: '1' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting: ((sample: Sample) => void)[] = [];
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      waiting.shift()?.(JSON.parse(buffered.slice(0, i)) as Sample);
      buffered = buffered.slice(i + 1);
    }
  });
  return {
    call: (root, args) =>
      new Promise((done) => {
        waiting.push(done);
        child.stdin.write(`${JSON.stringify({ root, args })}\n`);
      }),
    stop: () => child.stdin.end(),
  };
}

/**
 * VERB_AB=other.js: the same rounds on two copies of the store, one served by `other.js` (before) and one by this
 * build (after), each verb on both in turn (the order alternating by round), so load on a shared machine hits
 * both alike. Reports each side's median and the median of the per-round ratios after / before.
 */
async function compare(other: string): Promise<void> {
  console.log(
    `\nA/B in-process (${COLD ? 'cold: a process per call' : 'warm'}), ${process.versions.node}, ${chooseDriver()}: before = ${other}, after = ${__filename}`,
  );
  console.log(`work ms (runCli minus close), median of ${ROUNDS} rounds after ${WARMUP} untimed; ratio = median of after/before\n`);
  console.log(`| verb | ${SIZES.map((t) => `${t} todos: before → after (ratio)`).join(' | ')} |`);
  console.log(`| --- | ${SIZES.map(() => '---').join(' | ')} |`);
  const rows = new Map<string, string[]>();
  for (const todos of SIZES) {
    const roots = [copyStore(todos), copyStore(todos)];
    const sides = COLD
      ? [other, __filename].map((file) => ({
          call: (at: string, args: string[]) => coldCall(at, args, args.join(' '), file),
          stop: () => undefined,
        }))
      : [server(other), server(__filename)];
    const samples = new Map<string, [number, number][]>();
    try {
      for (let n = 0; n < WARMUP + ROUNDS; n++) {
        const both = async (args: string[]): Promise<[Sample, Sample]> => {
          const order = n % 2 ? [1, 0] : [0, 1];
          const out: Sample[] = [];
          for (const i of order) out[i] = await (sides[i] as (typeof sides)[number]).call(roots[i] as string, args);
          const [a, b] = out as [Sample, Sample];
          // Times, temp paths and a check's duration aside, both builds must answer alike (no behaviour change).
          const strip = (text: string) =>
            text.replace(/"durationMs":\d+/g, '').replace(/"[^"]*"/g, (q) => (/\d{4}-\d\d-\d\dT|\/tmp\//.test(q) ? '""' : q));
          // A tick runs its checks concurrently: the order of its runs is the order they finished in.
          if (args[0] !== 'monitor' && strip(a.stdout) !== strip(b.stdout))
            console.error(`DIFFERENT answers to ${args.join(' ')}:\n${a.stdout.slice(0, 2000)}\n${b.stdout.slice(0, 2000)}`);
          return [a, b];
        };
        const timed: Timed = async (verb, args) => {
          const [a, b] = await both(args);
          const work = (x: Sample) => x.ms - x.closeMs;
          if (n >= WARMUP) samples.set(verb, [...(samples.get(verb) ?? []), [work(a), work(b)]]);
          return a.stdout;
        };
        await round(timed, async (args) => (await both(args))[0].stdout, n);
      }
    } finally {
      sides.forEach((side) => side.stop());
    }
    for (const [verb, pairs] of samples) {
      const before = median(pairs.map((p) => p[0]));
      const after = median(pairs.map((p) => p[1]));
      const ratio = median(pairs.map((p) => p[1] / p[0]));
      rows.set(verb, [...(rows.get(verb) ?? []), `${before.toFixed(2)} → ${after.toFixed(2)} (${ratio.toFixed(2)})`]);
    }
    roots.forEach((root) => rmSync(root, { recursive: true, force: true }));
  }
  for (const [verb, cells] of rows) console.log(`| ${verb} | ${cells.join(' | ')} |`);
}

async function main(): Promise<void> {
  if (process.env.VERB_SERVE === '1') return serve();
  if (process.env.VERB_AB) return compare(resolve(process.env.VERB_AB));
  const one = process.env.VERB_ONE;
  if (one) {
    // The driver (better-sqlite3's addon, node:sqlite) loads before the timed call: start-up, not the verb's work.
    openDb(':memory:').close();
    if (SQL) sqlTimes = new Map();
    process.stdout.write(JSON.stringify(await call(process.cwd(), JSON.parse(one) as string[])));
    for (const [sql, t] of [...(sqlTimes ?? [])].sort((a, b) => b[1] - a[1]).slice(0, 12))
      process.stderr.write(`  ${t.toFixed(3)} ms  ${sql.replace(/\s+/g, ' ').slice(0, 120)}\n`);
    return;
  }
  const runtime = `Node ${process.versions.node}, ${chooseDriver()}`;
  const results: Record<number, { verbs: Record<string, VerbFigures>; close: Record<string, number> }> = {};
  for (const todos of SIZES) {
    const { verbs, close } = await measureSize(todos);
    const figures = (xs: Sample[]): VerbFigures => ({
      ms: median(xs.map((x) => x.ms)),
      closeMs: median(xs.map((x) => x.closeMs)),
      workMs: median(xs.map((x) => x.ms - x.closeMs)),
      cpuMs: median(xs.map((x) => x.cpuMs)),
    });
    results[todos] = { verbs: Object.fromEntries([...verbs].map(([v, xs]) => [v, figures(xs)])), close };
  }
  const mode = `${COLD ? 'cold: one call per process' : 'warm'}, median of ${ROUNDS} rounds after ${WARMUP} untimed`;
  console.log(`\nverb cost in-process (${mode}), ${runtime}; ms: total = work + close (cpu)\n`);
  console.log(`| verb | ${SIZES.map((s) => `${s} todos`).join(' | ')} |`);
  console.log(`| --- | ${SIZES.map(() => '---').join(' | ')} |`);
  const cell = (f: VerbFigures | undefined) =>
    f ? `${f.ms.toFixed(2)} = ${f.workMs.toFixed(2)} + ${f.closeMs.toFixed(2)} (${f.cpuMs.toFixed(2)})` : '';
  for (const verb of Object.keys(results[SIZES[0] as number]?.verbs ?? {})) {
    console.log(`| ${verb} | ${SIZES.map((s) => cell(results[s]?.verbs[verb])).join(' | ')} |`);
  }
  console.log(`\n| kernel.close() | ${SIZES.map((s) => `${s} todos`).join(' | ')} |`);
  console.log(`| --- | ${SIZES.map(() => '---').join(' | ')} |`);
  for (const name of Object.keys(results[SIZES[0] as number]?.close ?? {})) {
    console.log(`| ${name} | ${SIZES.map((s) => `${(results[s]?.close[name] ?? NaN).toFixed(2)} ms`).join(' | ')} |`);
  }
  for (const [verb, times] of sqlByVerb) {
    const top = [...times].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.VERB_SQL_TOP ?? 6));
    const total = [...times.values()].reduce((a, b) => a + b, 0) / ROUNDS;
    console.log(`\n${verb}: ${total.toFixed(2)} ms of SQL a call`);
    for (const [sql, t] of top) console.log(`  ${(t / ROUNDS).toFixed(3)} ms  ${sql.replace(/\s+/g, ' ').slice(0, 150)}`);
  }
  if (process.env.VERB_OUT) writeFileSync(process.env.VERB_OUT, `${JSON.stringify({ runtime, cold: COLD, results }, null, 2)}\n`);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openDb } from '../../src/kernel/db/openDb';
import { Kernel } from '../../src/kernel/kernel';
import { invalidEventData } from '../../src/kernel/events/eventValidation';
import { MIGRATIONS, type migrationSql } from '../../src/kernel/db/migrationSql';
import { SCHEMA_VERSION } from '../../src/kernel/db/migrate';
import type { StoredEvent } from '../../src/kernel/events/eventTypes';
import { REPO, cleanEnv, loopx, startGoal, workspace } from './harness';
import { backToSchema } from '../support/schemaKit';
import { AGENT_VERB_BUDGETS, type CallBudget, PACKAGES_IN_AGENT_BUNDLES } from './agentVerbBudgets';

/**
 * The guard on what an agent's call costs (issue 39). Agents call loopx hundreds of times a day, so a feature that
 * adds 20% to every call must fail here, naming the verb and what grew. Time varies from run to run and is never
 * asserted; these measures do not: the bytes of JavaScript a verb's bundle holds and the modules it evaluates
 * (esbuild's metafile, dist/agentBundles.json), the files a call actually loads (a require hook), the SQL it runs
 * (LOOPX_COUNT=1, src/kernel/db/sqlCount.ts), the events and event bytes a write appends, and the fsyncs it asks
 * of the disk (strace, where the machine has it). Budgets are in agentVerbBudgets.ts, with how to raise one.
 */
interface Bundle {
  bytes: number;
  inputs: Record<string, number>;
}
const bundles = (): Record<string, Bundle> => JSON.parse(readFileSync(join(REPO, 'dist', 'agentBundles.json'), 'utf8'));

/** The `size` biggest modules of a bundle, for a failure message: what to look at first. */
const biggest = (bundle: Bundle, size = 8) =>
  Object.entries(bundle.inputs)
    .sort((a, b) => b[1] - a[1])
    .slice(0, size)
    .map(([path, bytes]) => `${path} ${bytes} B`)
    .join(', ');
const packageOf = (input: string) => /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];

describe('what each agent verb’s bundle holds (esbuild’s metafile)', () => {
  test('every agent verb has a budget, and every budget a verb', () => {
    expect(Object.keys(AGENT_VERB_BUDGETS).sort()).toEqual(Object.keys(bundles()).sort());
  });

  test.each(Object.keys(AGENT_VERB_BUDGETS))('%s: bytes of JavaScript and modules evaluated within budget', (verb) => {
    const bundle = bundles()[verb] as Bundle;
    const budget = AGENT_VERB_BUDGETS[verb] as CallBudget;
    const modules = Object.keys(bundle.inputs).length;
    expect(
      bundle.bytes,
      `${verb}: its bundle is ${bundle.bytes} B, over its budget of ${budget.bundleBytes} B; biggest modules: ${biggest(bundle)}`,
    ).toBeLessThanOrEqual(budget.bundleBytes);
    expect(
      modules,
      `${verb}: its bundle evaluates ${modules} modules, over its budget of ${budget.modules}; biggest: ${biggest(bundle)}`,
    ).toBeLessThanOrEqual(budget.modules);
  });

  test('no agent verb bundles a package outside the list, nor the event schemas, zod or the migrations (loaded by path when needed)', () => {
    const strays: string[] = [];
    for (const [verb, bundle] of Object.entries(bundles()))
      for (const [input, bytes] of Object.entries(bundle.inputs)) {
        const pkg = packageOf(input);
        if ((pkg !== undefined && !PACKAGES_IN_AGENT_BUNDLES.includes(pkg)) || /eventValidation\.ts$|\.sql$/.test(input))
          strays.push(`${verb}: ${input} (${bytes} B)`);
      }
    expect(strays, 'modules an agent verb should load only on demand (esbuild.mjs, byPath) or not at all').toEqual([]);
  });
});

describe('what dist/cli.js, every other command’s bundle, holds (esbuild’s metafile)', () => {
  const cli = (): Bundle => JSON.parse(readFileSync(join(REPO, 'dist', 'cliBundle.json'), 'utf8'));

  test('none of what it loads by path on first use: yaml, croner, web-push, the event schemas, the migrations', () => {
    const strays = Object.entries(cli().inputs)
      .filter(([input]) => ['yaml', 'croner', 'web-push'].includes(packageOf(input) ?? '') || /eventValidation\.ts$|\.sql$/.test(input))
      .map(([input, bytes]) => `${input} (${bytes} B)`);
    expect(strays, 'modules dist/cli.js should load only on demand (esbuild.mjs, cliByPath)').toEqual([]);
  });

  test('its bytes within budget', () => {
    // 769,009 B in December 2026, when yaml, croner, the event schemas and the migrations left it (948,401 B before).
    expect(cli().bytes, `dist/cli.js is ${cli().bytes} B; biggest modules: ${biggest(cli())}`).toBeLessThanOrEqual(800_000);
  });
});

describe('what agent verbs load by path on first use (esbuild.mjs, byPath) is built beside them and works', () => {
  const load = (file: string) => createRequire(__filename)(join(REPO, 'dist', file)) as Record<string, unknown>;

  test('dist/eventValidation.js judges an event’s data as the source does', () => {
    const check = load('eventValidation.js').invalidEventData as typeof invalidEventData;
    const event = (kind: string, data: unknown) => ({ seq: 1, kind, data }) as unknown as StoredEvent;
    const cases = [
      event('todo.renewed', { leaseExpiresAt: '2026-01-02T10:30:00.000Z' }),
      event('todo.renewed', { leaseExpiresAt: 7 }),
      event('no.such', {}),
    ];
    expect(cases.map(check)).toEqual([null, expect.stringContaining('leaseExpiresAt'), 'unknown event kind no.such']);
    expect(cases.map(check)).toEqual(cases.map(invalidEventData));
  });

  test('dist/migrationSql.js holds every migration, as the source does', () => {
    const fromDist = load('migrationSql.js').migrationSql as typeof migrationSql;
    expect(MIGRATIONS.map((_, v) => fromDist(v))).toEqual(MIGRATIONS);
    expect(MIGRATIONS.length).toBe(SCHEMA_VERSION);
  });

  test('an agent verb on a store older than its code loads dist/migrationSql.js, migrates it, and counts its todos', () => {
    const old = workspace();
    loopx(['init', '--json'], { cwd: old.root });
    loopx(['goal', 'create', '--title', 'Old', '--json'], { cwd: old.root });
    loopx(['todo', 'add', '--goal', 'G1', '--title', 'from before', '--json'], { cwd: old.root, env: { LOOPX_AGENT: 'codex' } });
    const db = openDb(Kernel.storePath(old.root));
    // Three versions back: the kept counts (0016), the turns' indexes (0017) and store_meta (0018) are made again.
    backToSchema(db, SCHEMA_VERSION - 3);
    db.close();
    const loaded = join(scratch, 'older-store-loaded.json');
    const r = spawnSync(
      process.execPath,
      ['--require', hook, join(REPO, 'bin', 'loopx'), 'todo', 'add', '--goal', 'G1', '--title', 'after', '--json'],
      {
        cwd: old.root,
        env: cleanEnv({ LOOPX_AGENT: 'codex', LOOPX_TEST_LOADED: loaded }),
        encoding: 'utf8',
      },
    );
    expect(r.status, r.stderr).toBe(0);
    const files = (JSON.parse(readFileSync(loaded, 'utf8')) as string[])
      .filter((f) => f.startsWith(join(REPO, 'dist')))
      .map((f) => relative(REPO, f));
    expect(files.sort()).toEqual(['dist/agent/todo-add.js', 'dist/migrationSql.js']);
    const migrated = openDb(Kernel.storePath(old.root), undefined, { readOnly: true });
    try {
      expect(Number(migrated.prepare('PRAGMA user_version').get()?.user_version)).toBe(SCHEMA_VERSION);
      expect(migrated.prepare('SELECT goal_id, status, n FROM todo_counts').all()).toEqual([{ goal_id: 'G1', status: 'open', n: 2 }]);
      const indexes = migrated.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name IN (?, ?, ?) ORDER BY name");
      expect(indexes.all('quota_spends_turn', 'turns_open_goal', 'turns_usage_goal').map((r) => r.name)).toHaveLength(3);
      // The built CLI records itself as the loopx that wrote the schema: its package's version.
      const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
      expect(migrated.prepare("SELECT value FROM store_meta WHERE key = 'schema_written_by'").get()?.value).toBe(version);
    } finally {
      migrated.close();
    }
  });

  test('dist/croner.js gives the next run of a cron expression', () => {
    const Cron = load('croner.js').Cron as new (pattern: string, options: object) => { nextRun(from: Date): Date | null };
    const next = new Cron('0 9 * * 1-5', { paused: true, mode: '5-part', timezone: 'UTC' }).nextRun(new Date('2026-01-02T10:00:00Z'));
    expect(next?.toISOString()).toBe('2026-01-05T09:00:00.000Z');
  });
});

const HEAVY_BUILTINS = ['crypto', 'stream', 'worker_threads', 'child_process', 'net', 'os'];

/** One agent call, measured: the files it loaded, the SQL it ran, the events it appended, the fsyncs it made. */
interface CallCost {
  code: number;
  stdout: string;
  loaded: string[];
  /** Node's built-in modules the call loaded (node:crypto, node:worker_threads…). */
  builtins: string[];
  loadedBytes: number;
  sql: { exec: number; prepared: number; statements: number };
  events: number;
  eventBytes: number;
  fsyncs: number | null;
  /** Built-ins the call's bundle took through require(), each refreshing the built-in's ES-module facade. */
  builtinRequires: number;
  /** ICU's services the call set up (ICU_SETUPS): what it called of them, by name. */
  icu: string[];
  /** Files of the machine's time zone the call opened (/etc/localtime, zoneinfo): ICU's first look-up of it. */
  timeZoneReads: number | null;
}

/**
 * What sets up one of ICU's services on its first call in a process, measured alone (first call, Node 20 and 22):
 * localeCompare's collator 12 ms, toISOString's time-zone look-up 1 ms (a local-time getter or an Intl date format
 * does the same), normalize's tables 0.2 ms. The kernel compares and writes times as UTC text without them
 * (src/kernel/time.ts's iso); only a todo that recurs in a time zone needs Intl.
 */
const ICU_SETUPS: [string, string[]][] = [
  ['String.prototype', ['localeCompare', 'normalize', 'toLocaleLowerCase', 'toLocaleUpperCase']],
  ['Number.prototype', ['toLocaleString']],
  [
    'Date.prototype',
    ['toISOString', 'toJSON', 'toString', 'toDateString', 'toTimeString', 'toLocaleString', 'toLocaleDateString', 'toLocaleTimeString'],
  ],
  ['Date.prototype', ['getFullYear', 'getMonth', 'getDate', 'getDay', 'getHours', 'getMinutes', 'getTimezoneOffset']],
  ['Intl', ['Collator', 'DateTimeFormat', 'NumberFormat', 'Segmenter', 'PluralRules', 'RelativeTimeFormat', 'ListFormat']],
];

let ws: ReturnType<typeof workspace>;
let scratch: string;
let hook: string;
/** strace counts fsyncs where the machine lets a process trace its children; elsewhere that one measure is skipped. */
const strace = spawnSync('strace', ['-f', '-qq', '-e', 'trace=fsync', '-o', '/dev/null', process.execPath, '-e', '0']).status === 0;

function eventTotals(root: string): { events: number; bytes: number } {
  const db = openDb(Kernel.storePath(root), undefined, { readOnly: true });
  try {
    const row = db
      .prepare(
        `SELECT count(*) AS n, coalesce(sum(length(at) + length(actor) + length(actor_kind) + length(kind) + length(coalesce(goal_id, ''))
           + length(coalesce(todo_id, '')) + length(data) + length(prev_hash) + length(hash)), 0) AS bytes FROM events`,
      )
      .get();
    return { events: Number(row?.n), bytes: Number(row?.bytes) };
  } finally {
    db.close();
  }
}

function measure(args: string[], agent = 'codex'): CallCost {
  const loadedFile = join(scratch, 'loaded.json');
  // The syscalls strace saw: fsyncs, and the files opened (the time zone's among them).
  const syscallFile = join(scratch, 'syscalls.txt');
  const before = eventTotals(ws.root);
  const node = [process.execPath, '--require', hook, join(REPO, 'bin', 'loopx'), ...args];
  const traced = 'trace=fsync,fdatasync,open,openat,readlink';
  const [command, ...rest] = strace ? ['strace', '-f', '-qq', '-e', traced, '-o', syscallFile, ...node] : node;
  const r = spawnSync(command as string, rest, {
    cwd: ws.root,
    env: cleanEnv({ LOOPX_AGENT: agent, LOOPX_COUNT: '1', LOOPX_TEST_LOADED: loadedFile }),
    encoding: 'utf8',
  });
  const after = eventTotals(ws.root);
  // Every JavaScript file the call loaded, bin/loopx aside: its verb's bundle, and whatever that loaded by path.
  const builtins = JSON.parse(readFileSync(`${loadedFile}.builtins`, 'utf8')) as string[];
  const icu = JSON.parse(readFileSync(`${loadedFile}.icu`, 'utf8')) as string[];
  const builtinRequires = Number(readFileSync(`${loadedFile}.require`, 'utf8'));
  const loaded = (JSON.parse(readFileSync(loadedFile, 'utf8')) as string[])
    .filter((file) => file.endsWith('.js') && file.startsWith(join(REPO, 'dist')))
    .map((file) => relative(REPO, file));
  const sqlLine = r.stderr.split('\n').find((line) => line.startsWith('{"sql"'));
  const syscalls = strace ? readFileSync(syscallFile, 'utf8').split('\n') : null;
  if (sqlLine === undefined) throw new Error(`loopx ${args.join(' ')} printed no counts: ${r.stderr}`);
  return {
    code: r.status ?? -1,
    stdout: r.stdout,
    loaded,
    builtins,
    icu,
    builtinRequires,
    loadedBytes: loaded.reduce((sum, file) => sum + statSync(join(REPO, file)).size, 0),
    sql: (JSON.parse(sqlLine) as { sql: CallCost['sql'] }).sql,
    events: after.events - before.events,
    eventBytes: after.bytes - before.bytes,
    fsyncs: syscalls && syscalls.filter((line) => /^\d+\s+f(data)?sync\(/.test(line)).length,
    timeZoneReads: syscalls && syscalls.filter((line) => /^\d+\s+(open|openat|readlink)\(.*"[^"]*(localtime|zoneinfo)/.test(line)).length,
  };
}

/** An agent's turn in order, on one store: each call's verb (its bundle's name), words, and the agent calling. */
const TURN: [string, string[], string?][] = [
  ['status', ['status', '--json']],
  ['goal-list', ['goal', 'list', '--json']],
  ['goal-show', ['goal', 'show', 'G1', '--json']],
  ['quota-show', ['quota', 'show', '--goal', 'G1', '--json']],
  ['quota-should-run', ['quota', 'should-run', '--goal', 'G1', '--json']],
  ['todo-list', ['todo', 'list', '--json']],
  ['todo-next', ['todo', 'next', '--json']],
  ['todo-show', ['todo', 'show', 'T1', '--json']],
  ['todo-claim', ['todo', 'claim', '--next', '--json']],
  ['todo-renew', ['todo', 'renew', 'T1', '--json']],
  ['evidence-add', ['evidence', 'add', '--todo', 'T1', '--summary', 'parser tests pass', '--json']],
  ['evidence-list', ['evidence', 'list', '--todo', 'T1', '--json']],
  ['todo-ship', ['todo', 'ship', 'T1', '--evidence', 'parser tests pass', '--json']],
  ['todo-add', ['todo', 'add', '--goal', 'G1', '--title', 'Write the lexer', '--json']],
  ['gate-ask', ['gate', 'ask', '--todo', 'T2', '--question', 'May I change the grammar?', '--json']],
  ['gate-list', ['gate', 'list', '--json']],
  ['handoff', ['handoff', 'T3', '--to', 'claude', '--summary', 'the printer is half done', '--json']],
  ['handoff-accept', ['handoff', 'accept', 'H1', '--json'], 'claude'],
  ['todo-release', ['todo', 'release', 'T5', '--note', 'half done', '--json']],
  ['todo-block', ['todo', 'block', 'T4', '--reason', 'needs a decision', '--json']],
  ['turn-start', ['turn', 'start', '--goal', 'G1', '--host', 'codex', '--json']],
  ['turn-finish', ['turn', 'finish', 'R1', '--exit-code', '0', '--json']],
  ['monitor-tick', ['monitor', 'tick', '--json']],
];
const costs = new Map<string, CallCost>();

beforeAll(() => {
  ws = workspace();
  scratch = mkdtempSync(join(tmpdir(), 'loopx-cost-'));
  hook = join(scratch, 'hook.cjs');
  writeFileSync(
    hook,
    "process.once('exit', () => require('node:fs').writeFileSync(process.env.LOOPX_TEST_LOADED, JSON.stringify(Object.keys(require.cache))));\n" +
      // Node's own modules the call loaded (its internal list): the heavy ones a read must not pay for.
      "process.once('exit', () => require('node:fs').writeFileSync(process.env.LOOPX_TEST_LOADED + '.builtins', JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)))));\n" +
      // Every function of ICU_SETUPS the call used, by name (each wrapped so that a call is noted, then made).
      `const icu = new Set();\n` +
      `for (const [owner, names] of ${JSON.stringify(ICU_SETUPS)}) {\n` +
      `  const target = owner === 'Intl' ? Intl : owner.split('.').reduce((o, k) => o[k], globalThis);\n` +
      `  for (const name of names) if (typeof target[name] === 'function') target[name] = new Proxy(target[name], {\n` +
      `    apply: (f, self, args) => (icu.add(owner + '.' + name), Reflect.apply(f, self, args)),\n` +
      `    construct: (f, args, newTarget) => (icu.add(owner + '.' + name), Reflect.construct(f, args, newTarget)),\n` +
      `  });\n` +
      `}\n` +
      "process.once('exit', () => require('node:fs').writeFileSync(process.env.LOOPX_TEST_LOADED + '.icu', JSON.stringify([...icu])));\n" +
      // Built-ins loopx's bundles asked of require() (Module._load), not of process.getBuiltinModule.
      "const Module = require('node:module'); const load = Module._load; let viaRequire = 0;\n" +
      "Module._load = function (request, parent, ...rest) { if (Module.isBuiltin(request) && /[\\\\/]dist[\\\\/]/.test(parent?.filename ?? '')) viaRequire += 1; return load.call(this, request, parent, ...rest); };\n" +
      "process.once('exit', () => require('node:fs').writeFileSync(process.env.LOOPX_TEST_LOADED + '.require', String(viaRequire)));\n",
  );
  loopx(['init', '--json'], { cwd: ws.root });
  // Room for the turn started below while other todos are held (a goal runs one at a time by default).
  loopx(['goal', 'create', '--title', 'Ship it', '--max-concurrent', '10', '--json'], { cwd: ws.root });
  startGoal(ws.root);
  for (const title of ['Write the parser', 'Write the grammar', 'Write the printer', 'Write the linter', 'Write the docs'])
    loopx(['todo', 'add', '--goal', 'G1', '--title', title, '--json'], { cwd: ws.root });
  // T3 to T5 held by this agent, to hand off, block and release (claim --next takes T1: the oldest ready todo).
  for (const id of ['T3', 'T4', 'T5']) loopx(['todo', 'claim', id, '--json'], { cwd: ws.root, env: { LOOPX_AGENT: 'codex' } });
  for (const [verb, args, agent] of TURN) costs.set(verb, measure(args, agent));
});

afterAll(() => {
  ws?.dispose();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('what each agent call costs when it runs (one call per verb, an agent’s turn in order)', () => {
  test.each(TURN.map(([verb]) => verb))('%s: answers, loads its own bundle alone, within its SQL and event budgets', (verb) => {
    const cost = costs.get(verb) as CallCost;
    const budget = AGENT_VERB_BUDGETS[verb] as CallBudget;
    // LOOPX_PRINT_COSTS=1: each call's figures, to set a budget from (agentVerbBudgets.ts).
    if (process.env.LOOPX_PRINT_COSTS === '1') console.log(JSON.stringify({ verb, ...cost, stdout: undefined }));
    expect([cost.code, JSON.parse(cost.stdout).ok], `${verb} answered: ${cost.stdout}`).toEqual([0, true]);
    expect(cost.loaded, `${verb}: the JavaScript files the call loaded`).toEqual([join('dist', 'agent', `${verb}.js`)]);
    const sql = cost.sql.exec + cost.sql.statements;
    expect(
      sql,
      `${verb}: ran ${sql} SQL statements (${cost.sql.exec} exec, ${cost.sql.statements} prepared-statement runs, ${cost.sql.prepared} distinct), over its budget of ${budget.sql}`,
    ).toBeLessThanOrEqual(budget.sql);
    expect(cost.events, `${verb}: appended ${cost.events} events, its budget is ${budget.events}`).toBeLessThanOrEqual(budget.events);
    expect(
      cost.eventBytes,
      `${verb}: appended ${cost.eventBytes} B of events, over its budget of ${budget.eventBytes} B`,
    ).toBeLessThanOrEqual(budget.eventBytes);
  });

  /**
   * Node's modules that cost a call milliseconds to load (node:crypto and node:stream 2 ms each, node:worker_threads
   * 2.5 ms, node:child_process with node:net; node:os half a millisecond): a read needs none of them, so a file it
   * imports must not import them at its top (team mode's client, the worktrees' git runner, the home folder and host
   * name: loaded where they run, `process.getBuiltinModule`; kernel/nodeOs.ts).
   */
  test.each(TURN.filter(([verb]) => AGENT_VERB_BUDGETS[verb]?.events === 0).map(([verb]) => verb))(
    '%s: a read loads none of the heavy built-in modules',
    (verb) => {
      const cost = costs.get(verb) as CallCost;
      expect(
        cost.builtins.filter((m) => HEAVY_BUILTINS.includes(m)),
        `${verb}: node modules a read should not pay for (loaded at the top of a file it imports?)`,
      ).toEqual([]);
    },
  );

  /**
   * esbuild writes `require("node:fs")` at the top of each file that imports a built-in, about 30 in a verb's bundle,
   * and each require of a built-in refreshes every export of its ES-module facade (16 µs for node:fs on Node 22 here):
   * the bundles' banner (esbuild.mjs builtinsAsTheyAre) hands them to process.getBuiltinModule instead.
   */
  test.each(TURN.map(([verb]) => verb))('%s: takes Node’s built-ins as they are, none through require()', (verb) => {
    const cost = costs.get(verb) as CallCost;
    expect(cost.builtinRequires, `${verb}: its bundle required ${cost.builtinRequires} built-ins (the banner missing?)`).toBe(0);
  });

  test.each(TURN.map(([verb]) => verb))('%s: sets up none of ICU’s services (collation, time zones, Unicode tables)', (verb) => {
    const cost = costs.get(verb) as CallCost;
    expect(
      cost.icu,
      `${verb}: called what makes ICU set itself up on first use, a millisecond or more a call (compare times as UTC text; write them with iso() from src/kernel/time.ts)`,
    ).toEqual([]);
  });

  test.skipIf(!strace).each(TURN.map(([verb]) => verb))('%s: fsyncs per call within budget (strace)', (verb) => {
    const cost = costs.get(verb) as CallCost;
    const budget = AGENT_VERB_BUDGETS[verb] as CallBudget;
    expect(cost.fsyncs, `${verb}: asked for ${cost.fsyncs} fsyncs, over its budget of ${budget.fsyncs}`).toBeLessThanOrEqual(budget.fsyncs);
  });

  /**
   * The machine's time zone is looked up (ICU opens /etc/localtime) on the first toISOString, Intl date format or
   * local-time getter of a process: about 1 ms on Node 20, 22 and 24, 4% of a bare start. The kernel writes times in
   * UTC without it (src/kernel/time.ts's iso); only a todo that recurs in a time zone needs one.
   */
  test.skipIf(!strace).each(TURN.map(([verb]) => verb))('%s: never looks up the machine’s time zone (strace)', (verb) => {
    const cost = costs.get(verb) as CallCost;
    expect(
      cost.timeZoneReads,
      `${verb}: opened the time zone's files ${cost.timeZoneReads} times (a toISOString, toLocale… or Intl date call on its path? use iso() from src/kernel/time.ts)`,
    ).toBe(0);
  });
});

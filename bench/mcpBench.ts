import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { closeSync, cpSync, existsSync, fsyncSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Kernel } from '../src/kernel/kernel';
import { createGoal } from '../src/kernel/goals/goals';
import { addTodo, blockTodo, shipTodo } from '../src/kernel/todos/todos';
import { claimTodo } from '../src/kernel/todos/claims';
import { addEvidence } from '../src/kernel/evidence/evidence';
import { askGate } from '../src/kernel/gates/gates';
import { chooseDriver } from '../src/kernel/db/openDb';
import { createMcpServer } from '../src/cli/mcp/server';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

/**
 * `npm run bench:mcp`: the MCP path at its own limit. No process starts per call there, so the floor is SQLite and
 * the disk: each figure sits beside one 4 KB write + fsync on the same disk, timed in the same run, interleaved with
 * the calls (load on a shared machine hits both alike). Stores of 1,000 and 100,000 todos are seeded in this
 * process through the kernel's own operations (seeding 100,000 through the CLI would take hours), kept in
 * dist/bench/mcp-stores and copied for each run. A `loopx mcp` server (bin/loopx, as an MCP client starts it) then
 * answers ROUNDS rounds of: the read tools, then a claim's life (claim, evidence, ship). p50 and p95 per tool.
 */
const REPO = resolve(__dirname, '..', '..');
const LOOPX = join(REPO, 'bin', 'loopx');
const SIZES = (process.env.BENCH_TODOS ?? '1000,100000').split(',').map(Number);
// 80: the 1,000-todo store has about 90 todos ready to claim, and each round claims one.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 80);
const human = { name: 'ada', kind: 'human', channel: 'vscode' } as const;

const ms = (ns: bigint) => Number(ns) / 1e6;
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
};

/** 10 goals; 80% of the todos shipped (claim, evidence, ship), some claimed, gated and blocked; the rest ready. */
function seed(root: string, todos: number): number {
  const started = process.hrtime.bigint();
  mkdirSync(root, { recursive: true });
  const { kernel } = Kernel.init(root, { actor: human });
  // A benchmark store, not a user's: no fsync per transaction while seeding (the server then runs with the defaults).
  kernel.db.exec('PRAGMA synchronous = OFF');
  const agents = ['codex', 'claude', 'worker'].map((name) => kernel.as({ name, kind: 'agent' }));
  const goals = Array.from({ length: 10 }, (_, i) => createGoal(kernel, { title: `Goal ${i}`, turnsPerWindow: 100_000 }).id);
  const ids: string[] = [];
  for (let i = 0; i < todos; i++) {
    const dependsOn = i >= 20 && i % 7 === 0 ? [ids[i - 10] as string] : [];
    ids.push(addTodo(kernel, { goalId: goals[i % 10] as string, title: `Todo ${i}: do the thing`, priority: i % 4, dependsOn }).id);
  }
  const toShip = Math.floor(todos * 0.8);
  for (let i = 0; i < toShip; i++) {
    const a = agents[i % 3] as Kernel;
    claimTodo(a, ids[i] as string);
    addEvidence(a, { todoId: ids[i] as string, summary: 'tests pass' });
    shipTodo(a, ids[i] as string, {});
  }
  const free = ids.slice(toShip).filter((_, j) => (toShip + j) % 7 !== 0);
  free.slice(0, 50).forEach((id, j) => claimTodo(agents[j % 3] as Kernel, id));
  free.slice(50, 70).forEach((id) => askGate(agents[0] as Kernel, { todoId: id, question: `ok to change ${id}?` }));
  for (const id of free.slice(70, 80)) {
    claimTodo(agents[1] as Kernel, id);
    blockTodo(agents[1] as Kernel, id, 'needs a credential');
  }
  kernel.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  kernel.close();
  return ms(process.hrtime.bigint() - started) / 1000;
}

function seededStore(todos: number): { root: string; seedSeconds: number } {
  const kept = join(REPO, 'dist', 'bench', 'mcp-stores', String(todos));
  let seedSeconds = 0;
  if (!existsSync(Kernel.storePath(kept)) || process.env.BENCH_RESEED) {
    rmSync(kept, { recursive: true, force: true });
    seedSeconds = seed(kept, todos);
  }
  const root = mkdtempSync(join(tmpdir(), `loopx-mcp-bench-${todos}-`));
  cpSync(join(kept, '.loopx'), join(root, '.loopx'), { recursive: true });
  return { root, seedSeconds };
}

/**
 * The floor: `pages` 4 KB pages appended to a file in the store's folder, then fsync, as SQLite's WAL commit does.
 * One page is the issue's floor; eight are what a write commits (its event, the row it changes, their indexes).
 */
function fsyncFloor(storeDir: string, pages: number): { time(): number; close(): void } {
  const path = join(storeDir, `bench-floor-${pages}.tmp`);
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(4096 * pages, 7);
  let writes = 0;
  return {
    time() {
      const t0 = process.hrtime.bigint();
      writeSync(fd, chunk, 0, chunk.length, (writes++ % 64) * chunk.length);
      fsyncSync(fd);
      return ms(process.hrtime.bigint() - t0);
    },
    close() {
      closeSync(fd);
      rmSync(path, { force: true });
    },
  };
}

type Figures = Record<string, number[]>;
const FLOOR = 'write 4 KB + fsync (the floor)';
const COMMIT_SIZED = 'write 32 KB + fsync';

/** A server under test: `loopx mcp` as a client starts it, or (an A/B) another build of the server's bundle. */
interface Server {
  label: string;
  args(root: string): string[];
}
const LOOPX_MCP: Server = { label: 'now', args: (root) => [LOOPX, 'mcp', '--root', root] };
/** BENCH_MCP_BEFORE=dist/bench/mcp-before.js: an older build of src/cli/mcp/server.ts, run beside this one. */
const bundleServer = (label: string, bundle: string): Server => ({
  label,
  args: (root) => [
    '-e',
    `require(${JSON.stringify(resolve(bundle))}).serveMcp({ env: process.env, cwd: process.cwd(), root: ${JSON.stringify(root)} })`,
  ],
});

/** One connected server on its own copy of the store, and its figures. */
interface Run {
  server: Server;
  root: string;
  client: Client;
  figures: Figures;
}

async function connect(server: Server, root: string): Promise<Run> {
  const env = { ...process.env, LOOPX_AGENT: 'bench' } as Record<string, string>;
  delete env.LOOPX_ROOT;
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: server.args(root), cwd: root, env }));
  return { server, root, client, figures: {} };
}

/**
 * Each step of a round goes to every server in turn, then the floors are timed: load on a shared machine hits them
 * all alike. Each server writes to its own copy of the store, so their claims never meet.
 */
async function measure(runs: Run[], storeDir: string): Promise<Figures> {
  const floor = fsyncFloor(storeDir, 1);
  const commitSized = fsyncFloor(storeDir, 8);
  const floors: Figures = { [FLOOR]: [], [COMMIT_SIZED]: [] };
  const step = async (name: string, args: (run: Run) => Record<string, unknown>): Promise<Map<Run, Record<string, unknown>>> => {
    const data = new Map<Run, Record<string, unknown>>();
    for (const run of runs) {
      const t0 = process.hrtime.bigint();
      const result = (await run.client.callTool({ name, arguments: args(run) })) as { content: { text: string }[]; isError?: boolean };
      const t = ms(process.hrtime.bigint() - t0);
      if (result.isError) throw new Error(`${run.server.label} ${name}: ${result.content[0]?.text}`);
      (run.figures[name] ??= []).push(t);
      data.set(run, (JSON.parse(result.content[0]?.text ?? '{}') as { data: Record<string, unknown> }).data);
    }
    floors[FLOOR]?.push(floor.time());
    floors[COMMIT_SIZED]?.push(commitSized.time());
    return data;
  };
  try {
    const warm = await step('loopx_claim', () => ({}));
    await step('loopx_todo_show', (run) => ({ todo: warm.get(run)?.id }));
    for (const run of runs) run.figures = {};
    for (const k of Object.keys(floors)) floors[k] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await step('loopx_status', () => ({}));
      await step('loopx_next', () => ({}));
      await step('loopx_todo_list', () => ({ ready: true }));
      const claimed = await step('loopx_claim', () => ({}));
      const todo = (run: Run) => claimed.get(run)?.id;
      await step('loopx_todo_show', (run) => ({ todo: todo(run) }));
      await step('loopx_evidence', (run) => ({ todo: todo(run), summary: `round ${round}: tests pass` }));
      await step('loopx_ship', (run) => ({ todo: todo(run) }));
    }
  } finally {
    floor.close();
    commitSized.close();
  }
  return floors;
}

/**
 * The work of a call with the disk taken out: the server in this process (no pipe, no second process), its
 * connection at synchronous=OFF, so what is left is what loopx itself does besides waiting for the fsync.
 */
async function workWithoutFsync(root: string): Promise<Record<string, number>> {
  const server = createMcpServer({
    env: { LOOPX_AGENT: 'bench' },
    cwd: root,
    root,
    openStore: (at) => {
      const kernel = Kernel.open(at);
      kernel.db.exec('PRAGMA synchronous = OFF');
      return kernel;
    },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.server.connect(serverSide);
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(clientSide);
  const medians: Record<string, number> = {};
  const time = async (name: string, args: Record<string, unknown>, reps = 50): Promise<Record<string, unknown>> => {
    const xs: number[] = [];
    let text = '{}';
    for (let i = 0; i < reps; i++) {
      const t0 = process.hrtime.bigint();
      const result = (await client.callTool({ name, arguments: args })) as { content: { text: string }[] };
      xs.push(ms(process.hrtime.bigint() - t0));
      text = result.content[0]?.text ?? '{}';
    }
    medians[name] = quantile(xs, 0.5);
    return (JSON.parse(text) as { data: Record<string, unknown> }).data;
  };
  try {
    const claimed = await time('loopx_claim', {}, 1);
    await time('loopx_status', {}, 10);
    await time('loopx_next', {});
    await time('loopx_todo_show', { todo: claimed.id });
    await time('loopx_evidence', { todo: claimed.id, summary: 'tests pass' });
    await time('loopx_renew', { todo: claimed.id });
    delete medians.loopx_claim; // the first call opens the store
  } finally {
    await client.close();
    server.close();
  }
  return medians;
}

async function main(): Promise<void> {
  const servers = process.env.BENCH_MCP_BEFORE ? [bundleServer('before', process.env.BENCH_MCP_BEFORE), LOOPX_MCP] : [LOOPX_MCP];
  const lines: string[] = [];
  const load = [loadavg()[0] ?? 0];
  for (const todos of SIZES) {
    const stores = servers.map(() => seededStore(todos));
    const runs = await Promise.all(servers.map((server, i) => connect(server, stores[i]?.root as string)));
    try {
      const floors = await measure(runs, join(stores[0]?.root as string, '.loopx'));
      load.push(loadavg()[0] ?? 0);
      const floor = quantile(floors[FLOOR] ?? [], 0.5);
      const seedSeconds = stores[0]?.seedSeconds ?? 0;
      lines.push(
        '',
        `${todos.toLocaleString('en')} todos${seedSeconds ? ` (seeded in-process in ${seedSeconds.toFixed(0)} s)` : ''}, ${ROUNDS} rounds; p50 (p95) ms:`,
        '',
        `| call | ${runs.map((r) => r.server.label).join(' | ')} | ${runs.map((r) => `${r.server.label} − floor`).join(' | ')} |`,
        `| --- |${runs.map(() => ' --- |').join('')}${runs.map(() => ' --- |').join('')}`,
      );
      const cell = (xs: number[]) => `${quantile(xs, 0.5).toFixed(2)} (${quantile(xs, 0.95).toFixed(2)})`;
      for (const [name, xs] of Object.entries(floors))
        lines.push(`| ${name} | ${runs.map(() => cell(xs)).join(' | ')} |${runs.map(() => ' |').join('')}`);
      for (const name of Object.keys(runs[0]?.figures ?? {})) {
        const figures = runs.map((r) => r.figures[name] ?? []);
        const over = figures.map((xs) => (quantile(xs, 0.5) - floor).toFixed(2));
        lines.push(`| ${name} | ${figures.map(cell).join(' | ')} | ${over.join(' | ')} |`);
      }
      const work = await workWithoutFsync(stores[0]?.root as string);
      lines.push(
        '',
        `In this process, synchronous=OFF (the work besides the fsync), p50 ms: ${Object.entries(work)
          .map(([name, t]) => `${name} ${t.toFixed(2)}`)
          .join(', ')}`,
      );
    } finally {
      await Promise.all(runs.map((r) => r.client.close()));
      for (const store of stores) rmSync(store.root, { recursive: true, force: true });
    }
  }
  const driver = chooseDriver();
  console.log(
    `loopx mcp, Node ${process.versions.node}, ${driver}; load ${load.map((l) => l.toFixed(1)).join(' → ')}; ` +
      'bounds: a write within the floor + 2 ms, a read within 2 ms',
  );
  console.log(lines.join('\n'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

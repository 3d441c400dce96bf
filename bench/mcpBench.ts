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
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
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

/** The floor: one 4 KB page appended to a file in the store's folder, then fsync, as SQLite's WAL commit does. */
function fsyncFloor(storeDir: string): { time(): number; close(): void } {
  const path = join(storeDir, 'bench-floor.tmp');
  const fd = openSync(path, 'w');
  const page = Buffer.alloc(4096, 7);
  let writes = 0;
  return {
    time() {
      const t0 = process.hrtime.bigint();
      writeSync(fd, page, 0, page.length, (writes++ % 256) * page.length);
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

async function measure(root: string): Promise<Figures> {
  const env = { ...process.env, LOOPX_AGENT: 'bench' } as Record<string, string>;
  delete env.LOOPX_ROOT;
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [LOOPX, 'mcp', '--root', root], cwd: root, env }));
  const floor = fsyncFloor(join(root, '.loopx'));
  const figures: Figures = { 'write + fsync (floor)': [] };
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> => {
    const t0 = process.hrtime.bigint();
    const result = (await client.callTool({ name, arguments: args })) as { content: { text: string }[]; isError?: boolean };
    const t = ms(process.hrtime.bigint() - t0);
    if (result.isError) throw new Error(`${name}: ${result.content[0]?.text}`);
    (figures[name] ??= []).push(t);
    figures['write + fsync (floor)']?.push(floor.time());
    return (JSON.parse(result.content[0]?.text ?? '{}') as { data: Record<string, unknown> }).data;
  };
  try {
    const warm = await call('loopx_claim', {});
    await call('loopx_todo_show', { todo: warm.id });
    for (const k of Object.keys(figures)) figures[k] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await call('loopx_status');
      await call('loopx_next');
      await call('loopx_todo_list', { ready: true });
      const claimed = await call('loopx_claim', {});
      await call('loopx_todo_show', { todo: claimed.id });
      await call('loopx_evidence', { todo: claimed.id, summary: `round ${round}: tests pass` });
      await call('loopx_ship', { todo: claimed.id });
    }
  } finally {
    floor.close();
    await client.close();
  }
  return figures;
}

async function main(): Promise<void> {
  const lines: string[] = [];
  const load = [loadavg()[0] ?? 0];
  for (const todos of SIZES) {
    const { root, seedSeconds } = seededStore(todos);
    try {
      const figures = await measure(root);
      load.push(loadavg()[0] ?? 0);
      const floor = quantile(figures['write + fsync (floor)'] ?? [], 0.5);
      lines.push(
        '',
        `${todos.toLocaleString('en')} todos${seedSeconds ? ` (seeded in-process in ${seedSeconds.toFixed(0)} s)` : ''}, ${ROUNDS} rounds:`,
        '',
        '| call | p50 ms | p95 ms | p50 − floor ms |',
        '| --- | --- | --- | --- |',
      );
      for (const [name, xs] of Object.entries(figures)) {
        const p50 = quantile(xs, 0.5);
        lines.push(`| ${name} | ${p50.toFixed(2)} | ${quantile(xs, 0.95).toFixed(2)} | ${(p50 - floor).toFixed(2)} |`);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
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

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { Kernel } from '../../kernel/kernel';
import { makeStore, type TestStore } from '../../../test/support/testKit';
import { type Executed, recordStatements } from '../../../test/support/sqlRecorder';
import { createGoal, setGoalStatus } from '../../kernel/goals/goals';
import { addTodo } from '../../kernel/todos/todos';
import { STATUS_FILE, statusMdStale, writeStatusMd } from '../../runtime/projections/statusMd';
import { createMcpServer } from './server';

/**
 * The guard on the MCP path's cost (issue 39): what an MCP call costs, counted in things that do not vary from run
 * to run, each with a budget. The timings are `npm run bench:mcp`'s (docs/performance.md); a test never times.
 *
 * - fsyncs per write: write transactions committed per call. With the WAL and synchronous=FULL (checked here) each
 *   commit is one fsync of the WAL, the durability an answer waits for; nothing else loopx writes is fsynced.
 * - WAL pages per write: the pages one commit appends to the WAL (what that fsync carries to the disk).
 * - STATUS.md rewrites per call: the projection is no longer rewritten inside a call (it cost more than the write).
 * - SQL statements per call, BEGIN and COMMIT included.
 * - a read's queries at 2,000 todos walk an index (SEARCH) rather than scan a table that grows with the store.
 *
 * Budgets are today's figures (issue 39) with about a fifth more room: a change that adds a statement to a hot path fails here, by name.
 */
const TODOS = 2000;

/** Per tool: SQL statements in one call (today's figure in the comment). */
const STATEMENT_BUDGET: Record<string, number> = {
  loopx_status: 33, // 27 with one goal; each goal adds its next todo, quota and should-run
  loopx_next: 6, // 5
  loopx_todo_list: 5, // 4
  loopx_todo_show: 18, // 15
  loopx_claim: 19, // 16
  loopx_evidence: 10, // 8
  loopx_ship: 16, // 13
};
/** WAL pages a write commits (today: evidence 5, claim 7, ship 9). */
const WAL_PAGE_BUDGET = 11;

/**
 * A query plan's step that visits rows in proportion to the store: a scan of a table or index (goals aside: a store
 * has a handful; todo_counts too: five rows a goal at most), or a walk of every todo in a status that accumulates (todos_ready by status alone, the statement
 * asking for open, shipped or killed todos; claimed and blocked ones are bounded by the work in hand). A table-valued
 * function over the call's own arguments (json_each) or a constant row is no such step.
 */
function grows(step: string, sql: string): boolean {
  if (/^SCAN /.test(step)) return !/^SCAN (goals|todo_counts|json_each|CONSTANT ROW)\b/.test(step);
  return /todos_ready \(status=\?\)$/.test(step) && /status = ('(open|shipped|killed)'|\?)/.test(sql);
}

/** The steps of the SELECTs a call ran that grow with the store (`grows`), each statement explained as it ran. */
function growingSteps(ran: readonly Executed[]): string[] {
  const db = store.kernel.db;
  return ran
    .filter((e) => /^\s*SELECT/i.test(e.sql))
    .flatMap((e) => {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${e.sql}`)
        .all(...e.params)
        .map((row) => String(row.detail));
      // A walk in the order the statement asks for, cut by its LIMIT, stops at the page: it does not grow.
      const stopsEarly = /\bLIMIT\b/i.test(e.sql) && !plan.some((d) => d.startsWith('USE TEMP B-TREE'));
      return stopsEarly ? [] : plan.filter((d) => grows(d, e.sql));
    });
}

let store: TestStore;
let client: Client;
let server: ReturnType<typeof createMcpServer>;
let serverKernel: Kernel | undefined;
const executed: Executed[] = [];
const walPath = () => join(store.root, '.loopx', 'loopx.db-wal');
const statusPath = () => join(store.root, '.loopx', STATUS_FILE);
const statusInode = () => statSync(statusPath()).ino;

beforeAll(async () => {
  store = makeStore();
  // A big store quickly: this connection only seeds it (the server's own connection keeps synchronous=FULL).
  store.kernel.db.exec('PRAGMA synchronous = OFF');
  const goalId = createGoal(store.kernel, { title: 'Parser', turnsPerWindow: 10_000 }).id;
  setGoalStatus(store.kernel, goalId, 'active');
  for (let i = 0; i < TODOS; i++) addTodo(store.kernel, { goalId, title: `Todo ${i}`, priority: i % 4 });
  writeStatusMd(store.kernel);
  server = createMcpServer({
    env: { LOOPX_AGENT: 'claude' },
    cwd: store.root,
    root: store.root,
    statusMdIdleMs: 50,
    openStore: () => {
      serverKernel = store.open({});
      recordStatements(serverKernel.db, executed);
      return serverKernel;
    },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.server.connect(serverSide);
  client = new Client({ name: 'guard', version: '1.0.0' });
  await client.connect(clientSide);
});
afterAll(async () => {
  await client.close();
  server.close();
  store.dispose();
});

async function call(name: string, args: Record<string, unknown> = {}): Promise<{ data: Record<string, unknown>; ran: Executed[] }> {
  const from = executed.length;
  const result = (await client.callTool({ name, arguments: args })) as { content: { text: string }[]; isError?: boolean };
  const body = JSON.parse(result.content[0]?.text ?? '{}') as { ok: boolean; data: Record<string, unknown> };
  if (result.isError || !body.ok) throw new Error(`${name} failed: ${result.content[0]?.text}`);
  return { data: body.data, ran: executed.slice(from) };
}

/** Empties the WAL (a checkpoint from the seeding connection), so the next commit's pages are the file's frames. */
function emptyWal(): void {
  store.kernel.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
}
function walPages(): number {
  const size = statSync(walPath()).size;
  // A WAL file: a 32-byte header, then one frame (a 24-byte header and the page) per page written.
  return size === 0 ? 0 : (size - 32) / (4096 + 24);
}

describe('an MCP write', () => {
  test('is one durable commit (one fsync) of a bounded number of WAL pages, reads no growing table whole, and does not rewrite STATUS.md', async () => {
    await call('loopx_status'); // opens the store
    const db = serverKernel?.db;
    if (!db) throw new Error('the server opened no store');
    // The derivation "one commit = one fsync" holds only in this mode: a change to it fails here, not silently.
    expect(db.prepare('PRAGMA journal_mode').get()?.journal_mode, 'the store runs in WAL mode').toBe('wal');
    expect(db.prepare('PRAGMA synchronous').get()?.synchronous, 'every commit is fsynced (synchronous=FULL)').toBe(2);

    // The first write of an up-to-date file marks it "Out of date" (one small rewrite); no write after that touches it.
    const claimed = await call('loopx_claim');
    const inode = statusInode();
    const todo = String(claimed.data.id);

    const writes: [string, Record<string, unknown>][] = [
      ['loopx_evidence', { todo, summary: 'tests pass' }],
      ['loopx_ship', { todo }],
      ['loopx_claim', {}],
    ];
    for (const [name, args] of writes) {
      emptyWal();
      const { ran } = await call(name, args);
      const commits = ran.filter((e) => e.sql === 'BEGIN IMMEDIATE').length;
      expect(commits, `${name}: write transactions (fsyncs) per call`).toBe(1);
      expect(walPages(), `${name}: WAL pages per write (budget ${WAL_PAGE_BUDGET})`).toBeLessThanOrEqual(WAL_PAGE_BUDGET);
      expect(walPages(), `${name}: WAL pages per write`).toBeGreaterThan(0);
      expect(ran.length, `${name}: SQL statements per call (budget ${STATEMENT_BUDGET[name]})`).toBeLessThanOrEqual(
        STATEMENT_BUDGET[name] ?? 0,
      );
      expect(statusInode(), `${name}: STATUS.md rewrites per call`).toBe(inode);
      // A write reads before it writes (the todo, its readiness, the holds a claim leaves out): never the whole store.
      expect(growingSteps(ran), `${name}: query steps that grow with the store (scans)`).toEqual([]);
    }
    expect(statusMdStale(join(store.root, '.loopx')), 'the first write marked STATUS.md out of date').toBe(true);
  });

  test('STATUS.md is rewritten once the server is idle, and when it closes', async () => {
    const todo = String((await call('loopx_claim')).data.id);
    const marked = statusInode();
    // The idle rewrite (50 ms here, 1 s in use) comes after the answer, never inside it.
    await vi.waitFor(() => expect(statusMdStale(join(store.root, '.loopx'))).toBe(false), { timeout: 5000 });
    expect(statusInode()).not.toBe(marked);

    // The next write marks it again at once: a server killed now leaves it marked, which `loopx status` repairs.
    await call('loopx_release', { todo });
    expect(statusMdStale(join(store.root, '.loopx'))).toBe(true);
    server.close();
    expect(statusMdStale(join(store.root, '.loopx')), 'closing rewrites a pending STATUS.md').toBe(false);
  });
});

describe('an MCP read', () => {
  const reads: [string, Record<string, unknown>, known: RegExp[]][] = [
    ['loopx_status', {}, []],
    ['loopx_next', {}, []],
    // A ready list's `more` is the kept count of open todos without a hold (migration 0023), no longer judged todo by todo.
    ['loopx_todo_list', { ready: true }, []],
    ['loopx_todo_list', {}, []],
    ['loopx_todo_show', { todo: 'T1500' }, []],
  ];
  test.each(reads)('%s %j: no write, bounded statements, and at 2,000 todos no scan of a growing table', async (name, args, known) => {
    const inode = statusInode();
    const { ran } = await call(name, args);
    expect(ran.filter((e) => e.sql === 'BEGIN IMMEDIATE').length, `${name}: write transactions per read`).toBe(0);
    expect(statusInode(), `${name}: STATUS.md rewrites per read`).toBe(inode);
    expect(ran.length, `${name}: SQL statements per call (budget ${STATEMENT_BUDGET[name]})`).toBeLessThanOrEqual(
      STATEMENT_BUDGET[name] ?? 0,
    );
    const growing = growingSteps(ran);
    expect(
      growing.filter((d) => !known.some((k) => k.test(d))),
      `${name}: query steps that grow with the store (scans)`,
    ).toEqual([]);
    // A known step that is gone is taken off the list, so the list stays the truth.
    for (const k of known)
      expect(
        growing.some((d) => k.test(d)),
        `${name}: ${k} is gone: take it off its list`,
      ).toBe(true);
  });
});

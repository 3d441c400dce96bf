import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Kernel } from '../../src/kernel/kernel';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { recordTeamMove } from '../../src/kernel/team/teamEvents';
import { teamPointerPath } from '../../src/kernel/team/teamPointer';
import { LOOPX, cleanEnv, workspace } from './harness';

const ws = workspace();
beforeAll(() => {
  const { kernel } = Kernel.init(ws.root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
  const g = createGoal(kernel, { title: 'g' }).id;
  addTodo(kernel, { goalId: g, title: 'Parse headers' });
  addTodo(kernel, { goalId: g, title: 'Parse body' });
  kernel.close();
});
afterAll(() => ws.dispose());

async function connect(env: Record<string, string>, name = 'test-client', cwd = ws.root): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [LOOPX, 'mcp'],
    cwd,
    env: cleanEnv(env) as Record<string, string>,
  });
  await client.connect(transport);
  return client;
}

type Envelope = { ok: boolean; data?: Record<string, unknown>; error?: { code: string } };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<Envelope & { isError: boolean }> => {
  const result = (await client.callTool({ name, arguments: args })) as { content: { text: string }[]; isError?: boolean };
  return { ...(JSON.parse(result.content[0]?.text ?? '{}') as Envelope), isError: result.isError === true };
};

describe('loopx mcp', () => {
  test('offers the agent verbs and no way to approve or reject a gate', async () => {
    const client = await connect({ LOOPX_AGENT: 'claude' });
    try {
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual([
        'loopx_block',
        'loopx_check',
        'loopx_claim',
        'loopx_evidence',
        'loopx_gate_ask',
        'loopx_handoff',
        'loopx_handoff_accept',
        'loopx_monitor_add',
        'loopx_monitor_list',
        'loopx_next',
        'loopx_ready',
        'loopx_release',
        'loopx_renew',
        'loopx_review_show',
        'loopx_review_verdict',
        'loopx_ship',
        'loopx_status',
        'loopx_todo_list',
        'loopx_todo_show',
      ]);
      expect(names.some((n) => /approve|reject|decide/.test(n))).toBe(false);
    } finally {
      await client.close();
    }
  });

  test('an agent claims, records evidence, asks a gate and ships through the tools, as LOOPX_AGENT', async () => {
    const client = await connect({ LOOPX_AGENT: 'claude' });
    try {
      expect(await call(client, 'loopx_next')).toMatchObject({ ok: true, data: { id: 'T1' } });
      expect(await call(client, 'loopx_claim', {})).toMatchObject({ ok: true, data: { id: 'T1', owner: 'claude', status: 'claimed' } });
      const refused = await call(client, 'loopx_ship', { todo: 'T1' });
      expect(refused).toMatchObject({ ok: false, isError: true, error: { code: 'evidence_required' } });
      expect(await call(client, 'loopx_evidence', { todo: 'T1', summary: 'tests pass', kind: 'test' })).toMatchObject({ ok: true });
      expect(await call(client, 'loopx_ship', { todo: 'T1' })).toMatchObject({ ok: true, data: { status: 'shipped' } });
      expect(await call(client, 'loopx_gate_ask', { todo: 'T2', question: 'rewrite the body parser?' })).toMatchObject({
        ok: true,
        data: { status: 'pending', askedBy: 'claude' },
      });
      expect(await call(client, 'loopx_claim', { todo: 'T2' })).toMatchObject({ ok: false, error: { code: 'gate_pending' } });
      expect(await call(client, 'loopx_claim', { todo: 'T1; DROP' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
      const shown = await call(client, 'loopx_todo_show', { todo: 'T1' });
      expect(shown).toMatchObject({ ok: true, data: { id: 'T1', status: 'shipped', evidence: [{ summary: 'tests pass', kind: 'test' }] } });
      expect(shown.data?.history).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'todo.claimed', actor: 'claude' })]));
      expect(shown.data).not.toHaveProperty('owner'); // unset: left out
      expect(await call(client, 'loopx_todo_show', { todo: 'T404' })).toMatchObject({
        ok: false,
        isError: true,
        error: { code: 'not_found' },
      });
    } finally {
      await client.close();
    }
    const kernel = Kernel.open(ws.root);
    try {
      const gate = kernel.db.prepare(`SELECT status FROM gates WHERE id = 'Q1'`).get();
      expect(gate).toEqual({ status: 'pending' });
    } finally {
      kernel.close();
    }
  });

  test('an MCP-only agent lists todos, accepts a handoff, and reads hints that name tools it can call', async () => {
    const claude = await connect({ LOOPX_AGENT: 'claude' });
    const codex = await connect({ LOOPX_AGENT: 'codex' });
    try {
      const kernel = Kernel.open(ws.root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
      const todo = addTodo(kernel, { goalId: 'G1', title: 'Handed over' }).id;
      kernel.close();
      const listed = await call(claude, 'loopx_todo_list', { ready: true });
      expect(listed).toMatchObject({ ok: true, data: { todos: expect.arrayContaining([expect.objectContaining({ id: todo })]), more: 0 } });
      expect(await call(claude, 'loopx_todo_list', { goal: 'G404' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
      expect(await call(claude, 'loopx_claim', { todo })).toMatchObject({ ok: true });
      // Refused as held: the hint names the tool, not `loopx todo next`, which an agent without a shell cannot run.
      const held = await call(codex, 'loopx_claim', { todo });
      expect(held).toMatchObject({ ok: false, error: { code: 'already_claimed', hint: 'pick another with: loopx_next' } });
      const offer = await call(claude, 'loopx_handoff', { todo, to: 'codex', summary: 'parser done, tests next' });
      expect(offer).toMatchObject({ ok: true, data: { id: expect.stringMatching(/^H\d+$/) } });
      const accepted = await call(codex, 'loopx_handoff_accept', { handoff: offer.data?.id });
      expect(accepted).toMatchObject({ ok: true, data: { status: 'accepted', todoId: todo } });
      expect(await call(codex, 'loopx_todo_show', { todo })).toMatchObject({ ok: true, data: { owner: 'codex', status: 'claimed' } });
      expect(await call(codex, 'loopx_release', { todo })).toMatchObject({ ok: true });
    } finally {
      await claude.close();
      await codex.close();
    }
  });

  test('an agent hands its waiting to a monitor and lists monitors', async () => {
    const kernel = Kernel.open(ws.root, { actor: { name: 'ada', kind: 'human' } });
    addTodo(kernel, { goalId: 'G1', title: 'Wait for the deploy' });
    kernel.close();
    const client = await connect({ LOOPX_AGENT: 'claude' });
    try {
      expect(await call(client, 'loopx_claim', { todo: 'T3' })).toMatchObject({ ok: true });
      const added = await call(client, 'loopx_monitor_add', {
        todo: 'T3',
        check: 'curl -fsS localhost:9/health',
        every: '2m',
        until: 'match:ok',
        timeout: '1h',
        note: 'deploy 9 started',
      });
      expect(added).toMatchObject({
        ok: true,
        data: { id: 'M1', todoId: 'T3', everySeconds: 120, until: 'match:ok', addedBy: 'claude', status: 'waiting' },
      });
      expect(await call(client, 'loopx_monitor_add', { todo: 'T3', after: 'soon' })).toMatchObject({
        ok: false,
        error: { code: 'invalid_input' },
      });
      expect(await call(client, 'loopx_claim', { todo: 'T3' })).toMatchObject({ ok: false, error: { code: 'not_ready' } });
      expect(await call(client, 'loopx_monitor_list', { todo: 'T3' })).toMatchObject({
        ok: true,
        data: [{ id: 'M1', check: 'curl -fsS localhost:9/health' }],
      });
      expect(await call(client, 'loopx_monitor_list', { goal: 'G7' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    } finally {
      await client.close();
    }
  });

  test("without LOOPX_AGENT the client's name is the agent", async () => {
    const client = await connect({}, 'Codex CLI');
    try {
      expect(await call(client, 'loopx_status')).toMatchObject({ ok: true, data: { pendingGates: [{ id: 'Q1' }] } });
      expect(await call(client, 'loopx_evidence', { goal: 'G1', summary: 'looked around' })).toMatchObject({
        ok: true,
        data: { actor: 'Codex-CLI' },
      });
    } finally {
      await client.close();
    }
  });

  test('every text field is bounded like the CLI: oversized or deceptive input is an error answer, and the server goes on', async () => {
    const client = await connect({ LOOPX_AGENT: 'claude' });
    try {
      for (const [name, args] of [
        ['loopx_gate_ask', { goal: 'G1', question: 'q'.repeat(2001) }],
        ['loopx_evidence', { goal: 'G1', summary: 's'.repeat(4001) }],
        ['loopx_block', { todo: 'T2', reason: 'r'.repeat(2001) }],
        ['loopx_claim', { todo: 'T'.repeat(100) }],
        ['loopx_gate_ask', { goal: 'G1', question: 'Approve \u202ethe deletion?' }],
      ] as const) {
        const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
        expect(result.isError, name).toBe(true);
      }
      expect(await call(client, 'loopx_status')).toMatchObject({ ok: true });
    } finally {
      await client.close();
    }
  });

  test('a message over 10 MB gets an error answer and the server keeps listening', async () => {
    const child = spawn(process.execPath, [LOOPX, 'mcp'], { cwd: ws.root, env: cleanEnv({ LOOPX_AGENT: 'claude' }) });
    const lines: Record<string, unknown>[] = [];
    let buffered = '';
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const part of parts) if (part.trim()) lines.push(JSON.parse(part) as Record<string, unknown>);
    });
    const answer = async (id: number) => {
      const end = Date.now() + 30_000;
      for (;;) {
        const found = lines.find((l) => l.id === id);
        if (found) return found;
        if (Date.now() > end) throw new Error(`no answer to request ${id}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    try {
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      await answer(1);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'loopx_gate_ask', arguments: { goal: 'G1', question: 'x'.repeat(11 * 1024 * 1024) } },
      });
      expect(await answer(2)).toMatchObject({ error: { code: -32600, message: expect.stringContaining('too large') } });
      send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'loopx_status', arguments: {} } });
      const status = (await answer(3)) as { result: { content: { text: string }[] } };
      expect(JSON.parse(status.result.content[0]?.text ?? '{}')).toMatchObject({ ok: true });
    } finally {
      child.kill();
    }
  }, 60_000);

  test('a store moved into a team store under a running server: the refused write is retried on the store the workspace now points at', async () => {
    const moved = workspace();
    const { kernel } = Kernel.init(moved.root, { actor: { name: 'ada', kind: 'human', channel: 'tty' } });
    addTodo(kernel, { goalId: createGoal(kernel, { title: 'g' }).id, title: 'Parse headers' });
    const client = await connect({ LOOPX_AGENT: 'claude' }, 'test-client', moved.root);
    try {
      expect(await call(client, 'loopx_next')).toMatchObject({ ok: true, data: { id: 'T1' } });
      // What `loopx team push` leaves: the old store ends with its move, and the pointer names the team store (here a
      // port nothing listens on, so reaching it is refused in its own words).
      kernel.write((tx) => recordTeamMove(tx, 'team.pushed', { database: '127.0.0.1:1/moved', events: 3 }));
      kernel.close();
      writeFileSync(teamPointerPath(moved.root), JSON.stringify({ version: 1, database: 'postgresql://ada@127.0.0.1:1/moved' }));
      expect(await call(client, 'loopx_claim', {})).toMatchObject({ ok: false, error: { code: 'store_moved' } });
      expect(await call(client, 'loopx_claim', {})).toMatchObject({ ok: false, error: { code: 'team_unreachable' } });
    } finally {
      await client.close();
      moved.dispose();
    }
  }, 60_000);
});

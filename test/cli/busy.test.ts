import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openDb } from '../../src/kernel/db/openDb';
import { EXIT } from '../../src/kernel/errors';
import { Kernel } from '../../src/kernel/kernel';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { LOOPX, cleanEnv, loopxAsync, workspace } from './harness';

const ws = workspace();
beforeAll(() => {
  const { kernel } = Kernel.init(ws.root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
  addTodo(kernel, { goalId: createGoal(kernel, { title: 'g' }).id, title: 'Parse headers' });
  kernel.close();
});
afterAll(() => ws.dispose());

const events = () => {
  const db = openDb(Kernel.storePath(ws.root));
  try {
    return Number(db.prepare('SELECT count(*) AS n FROM events').get()?.n);
  } finally {
    db.close();
  }
};

test(`a store locked past the busy timeout is "busy" for the CLI (exit ${EXIT.refused}) and for MCP alike, and nothing is written`, async () => {
  const before = events();
  const client = new Client({ name: 'claude', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [LOOPX, 'mcp'],
      cwd: ws.root,
      env: cleanEnv({ LOOPX_AGENT: 'claude' }) as Record<string, string>,
    }),
  );
  // Another process holds the write lock for longer than loopx waits (10 s); both calls wait for it together.
  const holder = openDb(Kernel.storePath(ws.root));
  holder.exec('BEGIN IMMEDIATE');
  try {
    const [cli, mcp] = await Promise.all([
      loopxAsync(['goal', 'create', '--title', 'waits', '--json'], { cwd: ws.root }),
      client.callTool({ name: 'loopx_claim', arguments: { todo: 'T1' } }) as Promise<{ content: { text: string }[]; isError?: boolean }>,
    ]);
    expect(cli.code).toBe(EXIT.refused);
    expect(cli.json).toMatchObject({ ok: false, error: { code: 'busy', message: 'the store stayed locked by another writer for 10 s' } });
    expect(mcp.isError).toBe(true);
    expect(JSON.parse(mcp.content[0]?.text ?? '{}')).toMatchObject({
      ok: false,
      error: { code: 'busy', hint: expect.stringContaining('retry') },
    });
  } finally {
    holder.exec('ROLLBACK');
    holder.close();
    await client.close();
  }
  expect(events()).toBe(before);
}, 60_000);

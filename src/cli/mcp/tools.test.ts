import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { afterEach, describe, expect, test } from 'vitest';
import { Kernel } from '../../kernel/kernel';
import { createGoal } from '../../kernel/goals/goals';
import { addTodo } from '../../kernel/todos/todos';
import { claimTodo } from '../../kernel/todos/claims';
import { TEXT_LIMITS } from '../../shared/textLimits';
import { CLI_COMMANDS } from '../registry';
import { MCP_TOOLS, type McpTool } from './tools';
import { reviewRound } from '../../kernel/todos/reviewQueries';

const LIMITS = new Set<number>(Object.values(TEXT_LIMITS));

/** Every string a tool accepts (top level or in an array), with its maximum length. */
function stringFields(tool: McpTool): { field: string; max: number | null }[] {
  return Object.entries(tool.input).flatMap(([field, schema]) => {
    let inner: z.ZodType = schema as z.ZodType;
    while (inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType;
    if (inner instanceof z.ZodArray) inner = inner.element as z.ZodType;
    return inner instanceof z.ZodString ? [{ field, max: inner.maxLength }] : [];
  });
}

describe('the MCP tools, declared as data', () => {
  test('each mirrors a CLI command that exists, and no two share a name', () => {
    const cli = new Set(CLI_COMMANDS.map((c) => c.name.join(' ')));
    expect(MCP_TOOLS.filter((t) => !cli.has(t.cli)).map((t) => `${t.name} → loopx ${t.cli}`)).toEqual([]);
    expect(new Set(MCP_TOOLS.map((t) => t.name)).size).toBe(MCP_TOOLS.length);
  });

  test('no tool decides for a human, and every CLI command behind one is an agent verb, not a human-only one', () => {
    expect(MCP_TOOLS.filter((t) => /approve|reject|decide|unblock|restore|accept_log/.test(t.name))).toEqual([]);
    const humanOnly = CLI_COMMANDS.filter((c) => c.humanOnly).map((c) => c.name.join(' '));
    expect(MCP_TOOLS.filter((t) => humanOnly.includes(t.cli)).map((t) => t.name)).toEqual([]);
    // A price decides when a money cap is reached: setting, removing or importing one is a person's (issue 37).
    expect(humanOnly).toEqual(expect.arrayContaining(['prices set', 'prices remove', 'prices import']));
    expect(MCP_TOOLS.filter((t) => t.cli.startsWith('prices') || /price/.test(t.name))).toEqual([]);
  });

  test('every text a tool takes is bounded by a limit from TEXT_LIMITS, the table the kernel checks', () => {
    const fields = MCP_TOOLS.flatMap((t) => stringFields(t).map((f) => ({ ...f, tool: t.name })));
    expect(fields.length).toBeGreaterThan(25);
    expect(fields.filter((f) => f.max === null || !LIMITS.has(f.max))).toEqual([]);
  });
});

describe('the MCP schemas and the kernel refuse at the same length (one home: TEXT_LIMITS)', () => {
  const roots: string[] = [];
  afterEach(() => roots.splice(0).forEach((r) => rmSync(r, { recursive: true, force: true })));

  const cases: [tool: string, field: string, limit: number][] = [
    ['loopx_evidence', 'summary', TEXT_LIMITS.summary],
    ['loopx_gate_ask', 'question', TEXT_LIMITS.question],
    ['loopx_block', 'reason', TEXT_LIMITS.reason],
    ['loopx_monitor_add', 'note', TEXT_LIMITS.monitorNote],
  ];
  test.each(cases)('%s %s: the schema takes %i characters and refuses one more, and so does the kernel', (name, field, limit) => {
    const tool = MCP_TOOLS.find((t) => t.name === name);
    if (!tool) throw new Error(`no tool ${name}`);
    const schema = z.object(tool.input);
    const base = { todo: 'T1', goal: 'G1', summary: 's', question: 'q', reason: 'r', after: '1h' };
    expect(schema.safeParse({ ...base, [field]: 'x'.repeat(limit) }).success).toBe(true);
    expect(schema.safeParse({ ...base, [field]: 'x'.repeat(limit + 1) }).success).toBe(false);

    const root = mkdtempSync(join(tmpdir(), 'loopx-mcp-limits-'));
    roots.push(root);
    const { kernel } = Kernel.init(root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
    try {
      const goalId = createGoal(kernel, { title: 'g' }).id;
      const todoId = addTodo(kernel, { goalId, title: 't' }).id;
      const agent = kernel.as({ name: 'claude', kind: 'agent' });
      const ctx = { kernel: () => kernel, asAgent: () => agent };
      const run = (length: number) => {
        claimTodo(agent, todoId, {});
        return tool.run(ctx, { ...base, todo: todoId, goal: undefined, [field]: 'x'.repeat(length) } as never);
      };
      expect(() => run(limit + 1)).toThrow(`the limit is ${limit}`);
      expect(() => run(limit)).not.toThrow();
    } finally {
      kernel.close();
    }
  });
});

describe('loopx_ship on a goal with review', () => {
  test('sends the change to review with what the agent says it checked (`validation`)', () => {
    const root = mkdtempSync(join(tmpdir(), 'loopx-mcp-ship-'));
    const { kernel } = Kernel.init(root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
    try {
      const goalId = createGoal(kernel, { title: 'g', review: {} }).id;
      const todoId = addTodo(kernel, { goalId, title: 't' }).id;
      const agent = kernel.as({ name: 'claude', kind: 'agent' });
      claimTodo(agent, todoId, {});
      const ship = MCP_TOOLS.find((t) => t.name === 'loopx_ship') as McpTool;
      const args = { todo: todoId, evidence: 'fixtures pass', validation: 'ran the fixtures and read the diff' };
      expect(z.object(ship.input).safeParse(args).success).toBe(true);
      const shipped = ship.run({ kernel: () => kernel, asAgent: () => agent }, args as never) as { status: string };
      expect(shipped.status).toBe('in_review');
      expect(kernel.read((db) => reviewRound(db, todoId, 1))?.validation).toBe('ran the fixtures and read the diff');
    } finally {
      kernel.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

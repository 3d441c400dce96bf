import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import * as z from 'zod';
import { Kernel } from '../../kernel/kernel';
import { InvalidInputError } from '../../kernel/errors';
import { describeError } from '../../runtime/describeError';
import { failure, success } from '../../protocol/envelope';
import { locateRoot } from '../../kernel/locate';
import { claimNext, claimTodo, releaseTodo, renewTodo, shipTodo } from '../../kernel/ops/claims';
import { blockTodo } from '../../kernel/ops/todos';
import { addEvidence } from '../../kernel/ops/evidence';
import { askGate } from '../../kernel/ops/gates';
import { acceptHandoff, offerHandoff } from '../../kernel/ops/handoffs';
import { getGoal, getTodo } from '../../kernel/queries/lookups';
import { addMonitor } from '../../kernel/ops/monitors';
import { listMonitors } from '../../kernel/queries/monitors';
import { nextClaimable } from '../../kernel/queries/ready';
import { statusReport } from '../../kernel/queries/status';
import { todoView } from '../../kernel/queries/todoView';
import { todoPage } from '../../kernel/queries/lists';
import { TODO_STATUSES } from '../../kernel/model';
import { lean } from '../../protocol/lean';
import { todoShowData } from '../todoShowData';
import { EVIDENCE_SHOWN, HISTORY_SHOWN } from '../commands/todoShow';
import { STATUS_LIMIT } from '../commands/status';
import { writeStatusMd } from '../../kernel/projections/statusMd';
import { iso, parseDuration } from '../../kernel/time';
import { parseAgentName, parseId } from '../../kernel/validate';
import { VERSION } from '../main';
import { BoundedStdioTransport } from './boundedStdio';

/** A list answer's page: the CLI's `todo list` pages by 100; an agent's context is smaller. */
const MCP_LIST_LIMIT = 50;

type Result = { content: { type: 'text'; text: string }[]; isError?: boolean };

export interface McpOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  root?: string;
}

/**
 * The agent verbs as MCP tools over one kernel. There is deliberately no tool that approves or rejects a gate:
 * an agent reached through MCP is still an agent. Answers are the CLI's JSON envelope, as text.
 */
export function createMcpServer(options: McpOptions): { server: McpServer; close(): void } {
  const server = new McpServer(
    { name: 'loopx', version: VERSION },
    {
      instructions:
        'Durable goals, todos, gates and evidence for long-running agent work. Claim one todo, write back evidence, ship or release, and ask a gate for anything a human must decide.',
    },
  );
  let kernel: Kernel | undefined;
  const open = () => (kernel ??= Kernel.open(locateRoot({ root: options.root, envRoot: options.env.LOOPX_ROOT, cwd: options.cwd })));
  const agentName = (): string => {
    if (options.env.LOOPX_AGENT !== undefined && options.env.LOOPX_AGENT.trim() === '') {
      throw new InvalidInputError(
        'LOOPX_AGENT is empty: an empty agent name is not "no agent"',
        "name the agent, or unset LOOPX_AGENT to use the client's name",
      );
    }
    const raw = options.env.LOOPX_AGENT || server.server.getClientVersion()?.name;
    if (!raw) throw new InvalidInputError('no agent identity: set LOOPX_AGENT for the MCP server, or connect with a named client');
    return parseAgentName(
      raw
        .replace(/[^A-Za-z0-9._@+-]/g, '-')
        .replace(/^[^A-Za-z0-9]+/, '')
        .slice(0, 64) || 'agent',
      'MCP agent name',
    );
  };
  const asAgent = () => open().as({ name: agentName(), kind: 'agent' });

  const tool = <S extends z.ZodRawShape>(
    name: string,
    description: string,
    shape: S,
    run: (args: z.infer<z.ZodObject<S>>) => unknown,
    mutates = true,
  ) => {
    // The SDK's callback type is generic over every shape; this wrapper is checked through `run` instead.
    const callback = async (args: z.infer<z.ZodObject<S>>): Promise<Result> => {
      try {
        const data = run(args);
        if (mutates) writeStatusMd(open());
        return { content: [{ type: 'text', text: JSON.stringify(success(data)) }] };
      } catch (error) {
        // The CLI's envelope and the same map from error to body (a locked store is `busy` here too).
        return { isError: true, content: [{ type: 'text', text: JSON.stringify(failure(describeError(error, 'mcp').body)) }] };
      }
    };
    server.registerTool(name, { description, inputSchema: shape }, callback as never);
  };
  // The CLI's limits, enforced before anything runs (the kernel checks them again).
  const id = (what: string) => z.string().max(24).describe(what);
  const text = (max: number) => z.string().max(max);
  const todo = id('todo id, e.g. T3');
  const goal = id('goal id, e.g. G1').optional();
  const lease = z.string().max(24).optional().describe('lease length such as 30m or 2h');
  const artifacts = z.array(z.string().max(4096)).max(100).optional();
  const seconds = (text?: string) => (text === undefined ? undefined : parseDuration(text, 'lease'));

  tool(
    'loopx_status',
    `The attention queue: pending gates, blocked todos, lapsed leases, and each goal's next todo and quota (at most ${STATUS_LIMIT} items a list; data.more counts the rest).`,
    {},
    () => open().read((db, now) => statusReport(db, now, { limit: STATUS_LIMIT })),
    false,
  );
  tool(
    'loopx_todo_show',
    `One todo: its fields (unset or empty ones left out), acceptance, continuation, readiness, the newest ${EVIDENCE_SHOWN} evidence, its gates and its last ${HISTORY_SHOWN} events.`,
    { todo: id('todo id, e.g. T3') },
    (a) =>
      open().read((db, now) =>
        todoShowData(todoView(db, parseId('todo', a.todo), now, { evidence: EVIDENCE_SHOWN, history: HISTORY_SHOWN })),
      ),
    false,
  );
  tool(
    'loopx_todo_list',
    `Todos, ${MCP_LIST_LIMIT} at a time (unset or empty fields left out): all, one goal's, one status, or only those a claim could take now (ready, in claim order). data.more counts what is left.`,
    {
      goal,
      status: z.enum(TODO_STATUSES).optional(),
      ready: z.boolean().optional().describe('only todos a claim could take now, in claim order'),
      offset: z.number().int().min(0).optional().describe('skip this many (the next page)'),
    },
    (a) =>
      open().read((db, now) => {
        const goalId = a.goal ? parseId('goal', a.goal) : undefined;
        if (goalId) getGoal(db, goalId);
        const page = todoPage(db, iso(now), { goalId, status: a.status, ready: a.ready, offset: a.offset, limit: MCP_LIST_LIMIT });
        return { todos: page.todos.map(lean), more: page.more };
      }),
    false,
  );
  tool(
    'loopx_next',
    'The todo a claim of the next would take, or null.',
    { goal },
    (a) =>
      open().read((db, now) => {
        const goalId = a.goal ? parseId('goal', a.goal) : undefined;
        if (goalId) getGoal(db, goalId);
        return nextClaimable(db, iso(now), goalId);
      }),
    false,
  );
  tool(
    'loopx_claim',
    'Claim a todo by id, or the next ready one (optionally within a goal), with a lease.',
    { todo: todo.optional(), goal, lease },
    (a) =>
      (a.todo
        ? claimTodo(asAgent(), parseId('todo', a.todo), { leaseSeconds: seconds(a.lease) })
        : claimNext(asAgent(), { goalId: a.goal ? parseId('goal', a.goal) : undefined, leaseSeconds: seconds(a.lease) })
      ).todo,
  );
  tool('loopx_renew', 'Extend the lease on a todo you hold.', { todo, lease }, (a) =>
    renewTodo(asAgent(), parseId('todo', a.todo), { leaseSeconds: seconds(a.lease) }),
  );
  tool(
    'loopx_release',
    'Give a todo back unfinished; the note tells the next turn where to pick up.',
    { todo, note: text(10_000).optional() },
    (a) => releaseTodo(asAgent(), parseId('todo', a.todo), { note: a.note }),
  );
  tool(
    'loopx_ship',
    'Ship a todo you hold. Refused without evidence or while a gate is pending.',
    { todo, evidence: text(4000).optional(), artifacts },
    (a) => shipTodo(asAgent(), parseId('todo', a.todo), { evidence: a.evidence, artifacts: a.artifacts }),
  );
  tool('loopx_block', 'Mark a todo you hold as blocked, with what is in the way.', { todo, reason: text(2000) }, (a) =>
    blockTodo(asAgent(), parseId('todo', a.todo), a.reason),
  );
  tool(
    'loopx_evidence',
    'Record evidence for a todo or a goal; artifacts are workspace paths, hashed.',
    {
      todo: todo.optional(),
      goal,
      summary: text(4000),
      kind: text(10_000).optional(),
      artifacts,
    },
    (a) =>
      addEvidence(asAgent(), {
        todoId: a.todo ? parseId('todo', a.todo) : undefined,
        goalId: a.goal ? parseId('goal', a.goal) : undefined,
        summary: a.summary,
        kind: a.kind,
        artifacts: a.artifacts,
      }),
  );
  tool(
    'loopx_gate_ask',
    'Ask a human to decide before a todo (or the goal) may go on. Only a human can approve it.',
    { todo: todo.optional(), goal, question: text(2000) },
    (a) =>
      askGate(asAgent(), {
        todoId: a.todo ? parseId('todo', a.todo) : undefined,
        goalId: a.goal ? parseId('goal', a.goal) : undefined,
        question: a.question,
      }),
  );
  tool(
    'loopx_handoff',
    'Offer a todo you hold to another agent with what is done and what is left.',
    {
      todo,
      to: text(64),
      summary: text(4000),
      done: text(10_000).optional(),
      pending: text(10_000).optional(),
    },
    (a) => offerHandoff(asAgent(), parseId('todo', a.todo), { to: a.to, summary: a.summary, done: a.done, pending: a.pending }),
  );

  tool(
    'loopx_handoff_accept',
    'Accept a handoff offered to you (H1…): the claim moves to you with a fresh lease, and its summary becomes your continuation.',
    { handoff: id('handoff id, e.g. H1') },
    (a) => acceptHandoff(asAgent(), parseId('handoff', a.handoff)),
  );

  tool(
    'loopx_monitor_add',
    "Instead of polling in your turn: put a todo you hold to wait on a check loopx runs (every few minutes, from the workspace root, until it exits 0, its output changes, or matches a regex) or on a timer. Your claim is released; the todo is ready again with the check's result in its continuation when the monitor fires or expires. Then exit. A check runs once a person allowed it (or it matches a pattern a person allowed for the goal): the answer's approval says which.",
    {
      todo,
      check: z.string().optional().describe('a shell command, run from the workspace root'),
      every: z.string().optional().describe('between two runs, e.g. 5m (default 5m)'),
      until: z.string().optional().describe('exit0 (default), change, or match:REGEX'),
      timeout: z.string().optional().describe('the monitor expires after this long, e.g. 6h (default 24h)'),
      runLimit: z.string().optional().describe('one run is killed after this long (default 60s)'),
      after: z.string().optional().describe('instead of a check: a pure timer, e.g. 2h'),
      note: z.string().optional().describe('what the next turn should know'),
    },
    (a) => {
      const d = (text: string | undefined, flag: string) => (text === undefined ? undefined : parseDuration(text, flag));
      return addMonitor(asAgent(), {
        todoId: parseId('todo', a.todo),
        check: a.check,
        everySeconds: d(a.every, 'every'),
        until: a.until,
        timeoutSeconds: d(a.timeout, 'timeout'),
        runLimitSeconds: d(a.runLimit, 'runLimit'),
        afterSeconds: d(a.after, 'after'),
        note: a.note,
      });
    },
  );
  tool(
    'loopx_monitor_list',
    'Monitors (waiting first): what each checks, its next check and its last result.',
    { goal: z.string().optional(), todo: todo.optional() },
    (a) =>
      open().read((db) => {
        const goalId = a.goal ? parseId('goal', a.goal) : undefined;
        const todoId = a.todo ? parseId('todo', a.todo) : undefined;
        if (goalId) getGoal(db, goalId);
        if (todoId) getTodo(db, todoId);
        return listMonitors(db, { goalId, todoId });
      }),
    false,
  );

  return {
    server,
    close() {
      kernel?.close();
      kernel = undefined;
    },
  };
}

export async function serveMcp(options: McpOptions, transport: Transport = new BoundedStdioTransport()): Promise<void> {
  const { server, close } = createMcpServer(options);
  transport.onclose = close;
  await server.connect(transport);
}

import * as z from 'zod';
import type { Kernel } from '../../kernel/kernel';
import { claimNext, claimTodo, releaseTodo, renewTodo } from '../../kernel/todos/claims';
import { blockTodo, shipTodo } from '../../kernel/todos/todos';
import { addEvidence } from '../../kernel/evidence/evidence';
import { runEvidence } from '../../kernel/evidence/evidenceRun';
import { askGate } from '../../kernel/gates/gates';
import { acceptHandoff, offerHandoff } from '../../kernel/handoffs/handoffs';
import { addMonitor } from '../../kernel/monitors/monitors';
import { listMonitors } from '../../kernel/monitors/monitorQueries';
import { nextClaimable, getTodo, todoPage } from '../../kernel/todos/todoQueries';
import { statusReport } from '../../kernel/readModels/status';
import { todoView } from '../../kernel/readModels/todoView';
import { SEVERITIES, TODO_STATUSES } from '../../kernel/model';
import { prepareChange } from '../../kernel/todos/review';
import { reviewBrief } from '../../kernel/todos/reviewBrief';
import { VERDICTS } from '../../kernel/todos/verdicts';
import { giveVerdict } from '../../kernel/approvals';
import { lean } from '../../protocol/lean';
import { TEXT_LIMITS } from '../../shared/textLimits';
import { todoShowData } from '../todoShowData';
import { findWorktree } from '../../kernel/worktrees/worktreeRows';
import { changeSummary } from '../../kernel/worktrees/changeSummary';
import { EVIDENCE_SHOWN, HISTORY_SHOWN } from '../commands/todoShow';
import { STATUS_LIMIT } from '../commands/status';
import { iso, parseDuration } from '../../kernel/time';
import { parseId } from '../../kernel/validate';
import { getGoal } from '../../kernel/goals/goalQueries';
import { goalReadiness } from '../../runtime/goalReadiness';

/** A list answer's page: the CLI's `todo list` pages by 100; an agent's context is smaller. */
export const MCP_LIST_LIMIT = 50;

/** What a tool gets besides its arguments: the store, as it is (reads) or as the calling agent (writes). */
export interface ToolContext {
  kernel(): Kernel;
  asAgent(): Kernel;
}

/**
 * One MCP tool, declared like a CLI command (`src/cli/command.ts`): its name, what it does, its input schema (zod,
 * with the kernel's text limits from `TEXT_LIMITS`), the CLI command it mirrors, and what it runs. `mutates` tools
 * refresh STATUS.md after success.
 */
export interface McpTool<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  /** The CLI command that does the same (its words after `loopx`): `test/cli/mcp.test.ts` checks it exists. */
  cli: string;
  description: string;
  input: S;
  mutates: boolean;
  run(ctx: ToolContext, args: z.infer<z.ZodObject<S>>): unknown;
}

/** Keeps each tool's `run` typed by its own schema while the list holds them all. */
const tool = <S extends z.ZodRawShape>(spec: McpTool<S>): McpTool => spec as unknown as McpTool;

// The kernel's limits, enforced before anything runs (the kernel checks them again).
const id = (what: string) => z.string().max(TEXT_LIMITS.token).describe(what);
const text = (max: number) => z.string().max(max);
const todo = id('todo id, e.g. T3');
const goal = id('goal id, e.g. G1').optional();
const duration = (what: string) => z.string().max(TEXT_LIMITS.token).optional().describe(what);
const lease = duration('lease length such as 30m or 2h');
const artifacts = z.array(z.string().max(TEXT_LIMITS.artifactPath)).max(TEXT_LIMITS.artifacts).optional();
const seconds = (value: string | undefined, flag: string) => (value === undefined ? undefined : parseDuration(value, flag));
const optionalId = (entity: 'goal' | 'todo', value: string | undefined) => (value ? parseId(entity, value) : undefined);

/**
 * The agent verbs as MCP tools. There is deliberately no tool that approves or rejects a gate: an agent reached
 * through MCP is still an agent.
 */
export const MCP_TOOLS: readonly McpTool[] = [
  tool({
    name: 'loopx_status',
    cli: 'status',
    description: `The attention queue: pending gates, blocked todos, lapsed leases, and each goal's next todo and quota (at most ${STATUS_LIMIT} items a list; data.more counts the rest).`,
    input: {},
    mutates: false,
    run: (ctx) => ctx.kernel().read((db, now) => statusReport(db, now, { limit: STATUS_LIMIT })),
  }),
  tool({
    name: 'loopx_ready',
    cli: 'ready',
    description:
      'Whether a goal is ready to be left running: a score (0-100) and each reason with its fix: active, its host installed and accepting its command, turns and caps, recurring todos within budget, nothing waiting on a person, recent turns making progress, no lapsed claims, its worktree base, work left, a loopx run serving it. Changes nothing.',
    input: {
      goal: id('goal id, e.g. G1'),
      host: id('the host to judge (claude, codex, opencode, gemini, copilot, qwen, pi); default: the one that ran it last').optional(),
    },
    mutates: false,
    run: (ctx, a) => goalReadiness(ctx.kernel(), parseId('goal', a.goal), { ...(a.host ? { host: a.host } : {}), env: process.env }),
  }),
  tool({
    name: 'loopx_todo_show',
    cli: 'todo show',
    description: `One todo: its fields (unset or empty ones left out), acceptance, continuation, readiness, the newest ${EVIDENCE_SHOWN} evidence, its gates and its last ${HISTORY_SHOWN} events.`,
    input: { todo },
    mutates: false,
    run: async (ctx, a) => {
      const kernel = ctx.kernel();
      const { view, row } = kernel.read((db, now) => {
        const todoId = parseId('todo', a.todo);
        return { view: todoView(db, todoId, now, { evidence: EVIDENCE_SHOWN, history: HISTORY_SHOWN }), row: findWorktree(db, todoId) };
      });
      // Its branch, commits and diff stat, as `todo show --json` gives them (read from git, outside the read).
      return todoShowData(view, row ? await changeSummary(kernel.root, row) : null);
    },
  }),
  tool({
    name: 'loopx_todo_list',
    cli: 'todo list',
    description: `Todos, ${MCP_LIST_LIMIT} at a time (unset or empty fields left out): all, one goal's, one status, or only those a claim could take now (ready, in claim order). data.more counts what is left.`,
    input: {
      goal,
      status: z.enum(TODO_STATUSES).optional(),
      ready: z.boolean().optional().describe('only todos a claim could take now, in claim order'),
      offset: z.number().int().min(0).optional().describe('skip this many (the next page)'),
    },
    mutates: false,
    run: (ctx, a) =>
      ctx.kernel().read((db, now) => {
        const goalId = optionalId('goal', a.goal);
        if (goalId) getGoal(db, goalId);
        const page = todoPage(db, iso(now), { goalId, status: a.status, ready: a.ready, offset: a.offset, limit: MCP_LIST_LIMIT });
        return { todos: page.todos.map(lean), more: page.more };
      }),
  }),
  tool({
    name: 'loopx_next',
    cli: 'todo next',
    description: 'The todo a claim of the next would take, or null.',
    input: { goal },
    mutates: false,
    run: (ctx, a) =>
      ctx.kernel().read((db, now) => {
        const goalId = optionalId('goal', a.goal);
        if (goalId) getGoal(db, goalId);
        return nextClaimable(db, iso(now), goalId);
      }),
  }),
  tool({
    name: 'loopx_claim',
    cli: 'todo claim',
    description: 'Claim a todo by id, or the next ready one (optionally within a goal), with a lease.',
    input: { todo: todo.optional(), goal, lease },
    mutates: true,
    run: (ctx, a) =>
      (a.todo
        ? claimTodo(ctx.asAgent(), parseId('todo', a.todo), { leaseSeconds: seconds(a.lease, 'lease') })
        : claimNext(ctx.asAgent(), { goalId: optionalId('goal', a.goal), leaseSeconds: seconds(a.lease, 'lease') })
      ).todo,
  }),
  tool({
    name: 'loopx_renew',
    cli: 'todo renew',
    description: 'Extend the lease on a todo you hold.',
    input: { todo, lease },
    mutates: true,
    run: (ctx, a) => renewTodo(ctx.asAgent(), parseId('todo', a.todo), { leaseSeconds: seconds(a.lease, 'lease') }),
  }),
  tool({
    name: 'loopx_release',
    cli: 'todo release',
    description: 'Give a todo back unfinished; the note tells the next turn where to pick up.',
    input: { todo, note: text(TEXT_LIMITS.text).optional() },
    mutates: true,
    run: (ctx, a) => releaseTodo(ctx.asAgent(), parseId('todo', a.todo), { note: a.note }),
  }),
  tool({
    name: 'loopx_ship',
    cli: 'todo ship',
    description:
      'Ship a todo you hold. Refused without evidence or while a gate is pending. Where the goal asks for review, it sends the change to its reviewer instead: say what you checked in `validation`.',
    input: { todo, evidence: text(TEXT_LIMITS.summary).optional(), artifacts, validation: text(TEXT_LIMITS.summary).optional() },
    mutates: true,
    run: (ctx, a) =>
      shipTodo(ctx.asAgent(), parseId('todo', a.todo), { evidence: a.evidence, artifacts: a.artifacts, validation: a.validation }),
  }),
  tool({
    name: 'loopx_block',
    cli: 'todo block',
    description: 'Mark a todo you hold as blocked, with what is in the way.',
    input: { todo, reason: text(TEXT_LIMITS.reason) },
    mutates: true,
    run: (ctx, a) => blockTodo(ctx.asAgent(), parseId('todo', a.todo), a.reason),
  }),
  tool({
    name: 'loopx_evidence',
    cli: 'evidence add',
    description: 'Record evidence for a todo or a goal; artifacts are workspace paths, hashed.',
    input: { todo: todo.optional(), goal, summary: text(TEXT_LIMITS.summary), kind: text(TEXT_LIMITS.text).optional(), artifacts },
    mutates: true,
    run: (ctx, a) =>
      addEvidence(ctx.asAgent(), {
        todoId: optionalId('todo', a.todo),
        goalId: optionalId('goal', a.goal),
        summary: a.summary,
        kind: a.kind,
        artifacts: a.artifacts,
      }),
  }),
  tool({
    name: 'loopx_check',
    cli: 'evidence run',
    description:
      "Run the acceptance check a person set on a todo (or its goal) and record its result as the kernel's evidence, not your word: loopx_ship needs a passing run since your claim. You cannot change the check.",
    input: { todo },
    mutates: true,
    run: async (ctx, a) => {
      const { evidence, result } = await runEvidence(ctx.asAgent(), { todoId: parseId('todo', a.todo), check: true, env: process.env });
      return { evidence, exitCode: result.exitCode, timedOut: result.timedOut };
    },
  }),
  tool({
    name: 'loopx_gate_ask',
    cli: 'gate ask',
    description: 'Ask a human to decide before a todo (or the goal) may go on. Only a human can approve it.',
    input: { todo: todo.optional(), goal, question: text(TEXT_LIMITS.question) },
    mutates: true,
    run: (ctx, a) =>
      askGate(ctx.asAgent(), { todoId: optionalId('todo', a.todo), goalId: optionalId('goal', a.goal), question: a.question }),
  }),
  tool({
    name: 'loopx_handoff',
    cli: 'handoff',
    description: 'Offer a todo you hold to another agent with what is done and what is left.',
    input: {
      todo,
      to: text(TEXT_LIMITS.agentName),
      summary: text(TEXT_LIMITS.summary),
      done: text(TEXT_LIMITS.text).optional(),
      pending: text(TEXT_LIMITS.text).optional(),
    },
    mutates: true,
    run: (ctx, a) =>
      offerHandoff(ctx.asAgent(), parseId('todo', a.todo), { to: a.to, summary: a.summary, done: a.done, pending: a.pending }),
  }),
  tool({
    name: 'loopx_handoff_accept',
    cli: 'handoff accept',
    description:
      'Accept a handoff offered to you (H1…): the claim moves to you with a fresh lease, and its summary becomes your continuation.',
    input: { handoff: id('handoff id, e.g. H1') },
    mutates: true,
    run: (ctx, a) => acceptHandoff(ctx.asAgent(), parseId('handoff', a.handoff)),
  }),
  tool({
    name: 'loopx_monitor_add',
    cli: 'monitor add',
    description:
      "Instead of polling in your turn: put a todo you hold to wait on a check loopx runs (every few minutes, from the workspace root, until it exits 0, its output changes, or matches a regex) or on a timer. Your claim is released; the todo is ready again with the check's result in its continuation when the monitor fires or expires. Then exit. A check runs once a person allowed it (or it matches a pattern a person allowed for the goal): the answer's approval says which.",
    input: {
      todo,
      check: text(TEXT_LIMITS.check).optional().describe('a shell command, run from the workspace root'),
      every: duration('between two runs, e.g. 5m (default 5m)'),
      until: text(TEXT_LIMITS.until).optional().describe('exit0 (default), change, or match:REGEX'),
      timeout: duration('the monitor expires after this long, e.g. 6h (default 24h)'),
      runLimit: duration('one run is killed after this long (default 60s)'),
      after: duration('instead of a check: a pure timer, e.g. 2h'),
      note: text(TEXT_LIMITS.monitorNote).optional().describe('what the next turn should know'),
    },
    mutates: true,
    run: (ctx, a) =>
      addMonitor(ctx.asAgent(), {
        todoId: parseId('todo', a.todo),
        check: a.check,
        everySeconds: seconds(a.every, 'every'),
        until: a.until,
        timeoutSeconds: seconds(a.timeout, 'timeout'),
        runLimitSeconds: seconds(a.runLimit, 'runLimit'),
        afterSeconds: seconds(a.after, 'after'),
        note: a.note,
      }),
  }),
  tool({
    name: 'loopx_monitor_list',
    cli: 'monitor list',
    description: 'Monitors (waiting first): what each checks, its next check and its last result.',
    input: { goal, todo: todo.optional() },
    mutates: false,
    run: (ctx, a) =>
      ctx.kernel().read((db) => {
        const goalId = optionalId('goal', a.goal);
        const todoId = optionalId('todo', a.todo);
        if (goalId) getGoal(db, goalId);
        if (todoId) getTodo(db, todoId);
        return listMonitors(db, { goalId, todoId });
      }),
  }),
  tool({
    name: 'loopx_review_show',
    cli: 'review show',
    description:
      "A change in review: its diff and commits, the todo's acceptance, what the implementer says it checked, the acceptance check's last run, the evidence and earlier rounds.",
    input: { todo },
    mutates: false,
    run: (ctx, a) => {
      const kernel = ctx.kernel();
      const todoId = parseId('todo', a.todo);
      const change = prepareChange(kernel, todoId);
      return kernel.read((db) => reviewBrief(db, todoId, change));
    },
  }),
  tool({
    name: 'loopx_review_verdict',
    cli: 'review approve',
    description:
      'Your verdict on the change you review (a review turn holds it; never your own change): approve, request_changes (with findings) or could_not_review (never an approval). Each finding: severity P0–P3, confidence 0–1, title, body, file, line.',
    input: {
      todo,
      verdict: z.enum(VERDICTS),
      summary: text(TEXT_LIMITS.summary).describe('what you checked and found; for could_not_review, what stopped you'),
      findings: z
        .array(
          z.object({
            severity: z.enum(SEVERITIES),
            confidence: z.number().optional(),
            title: text(TEXT_LIMITS.title),
            body: text(TEXT_LIMITS.summary).optional(),
            file: text(TEXT_LIMITS.short).optional(),
            line: z.number().int().min(1).optional(),
          }),
        )
        .optional(),
    },
    mutates: true,
    run: (ctx, a) => giveVerdict(ctx.asAgent(), parseId('todo', a.todo), { verdict: a.verdict, summary: a.summary, findings: a.findings }),
  }),
];

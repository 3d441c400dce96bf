import * as z from 'zod/mini';
import type { Row } from './db/sqliteDb';
import { lazy } from './lazy';

/** Rows are parsed with zod at the store boundary; the API shapes below are what every adapter sees. */
export const GOAL_STATUSES = ['active', 'paused', 'done', 'stopped'] as const;
export const TODO_STATUSES = ['open', 'claimed', 'blocked', 'shipped', 'killed'] as const;
export const GATE_STATUSES = ['pending', 'approved', 'rejected', 'cancelled'] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];
export type TodoStatus = (typeof TODO_STATUSES)[number];
export type GateStatus = (typeof GATE_STATUSES)[number];

/** Row schemas are built on first use (constructing them costs milliseconds the CLI need not pay up front). */
const rowSchemas = lazy(() => {
  const text = z.string();
  const maybe = z.nullable(z.string());
  const int = z.int();
  const stringArray = z.array(z.string());
  const jsonArray = z.pipe(z.string(), z.transform((s: string) => stringArray.parse(JSON.parse(s))));
  const goalRow = z.object({
    id: text,
    title: text,
    objective: text,
    scope: jsonArray,
    status: z.enum(GOAL_STATUSES),
    turns_per_window: int,
    window_hours: z.number(),
    max_concurrent: int,
    cooldown_seconds: int,
    created_at: text,
    updated_at: text,
  });
  const todoRow = z.object({
    id: text,
    goal_id: text,
    title: text,
    detail: text,
    priority: int,
    status: z.enum(TODO_STATUSES),
    owner: maybe,
    lease_expires_at: maybe,
    continuation: text,
    reason: maybe,
    revision: int,
    created_at: text,
    updated_at: text,
    deps: maybe,
    evidence_count: z.optional(int),
  });
  const gateRow = z.object({
    id: text,
    goal_id: text,
    todo_id: maybe,
    question: text,
    status: z.enum(GATE_STATUSES),
    asked_by: text,
    asked_at: text,
    decided_by: maybe,
    decided_at: maybe,
    note: maybe,
  });
  const handoffRow = z.object({
    id: text,
    todo_id: text,
    from_agent: text,
    to_agent: text,
    summary: text,
    done: text,
    pending: text,
    permissions: jsonArray,
    status: z.enum(['offered', 'accepted', 'superseded']),
    created_at: text,
    accepted_at: maybe,
  });
  const agentRow = z.object({
    name: text,
    kind: z.enum(['codex', 'claude', 'custom', 'human']),
    first_seen: text,
    last_seen: text,
    holding: maybe,
  });
  return { goalRow, todoRow, gateRow, handoffRow, agentRow };
});

export const goalFromRow = (row: Row) => {
  const r = rowSchemas().goalRow.parse(row);
  return {
    id: r.id,
    title: r.title,
    objective: r.objective,
    scope: r.scope,
    status: r.status,
    policy: {
      turnsPerWindow: r.turns_per_window,
      windowHours: r.window_hours,
      maxConcurrent: r.max_concurrent,
      cooldownSeconds: r.cooldown_seconds,
    },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
};
export type Goal = ReturnType<typeof goalFromRow>;


export const todoFromRow = (row: Row) => {
  const r = rowSchemas().todoRow.parse(row);
  return {
    id: r.id,
    goalId: r.goal_id,
    title: r.title,
    detail: r.detail,
    priority: r.priority,
    status: r.status,
    owner: r.owner,
    leaseExpiresAt: r.lease_expires_at,
    dependsOn: r.deps ? r.deps.split(',') : [],
    continuation: r.continuation,
    reason: r.reason,
    revision: r.revision,
    evidenceCount: r.evidence_count ?? 0,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
};
export type Todo = ReturnType<typeof todoFromRow>;


export const gateFromRow = (row: Row) => {
  const r = rowSchemas().gateRow.parse(row);
  return {
    id: r.id,
    goalId: r.goal_id,
    todoId: r.todo_id,
    question: r.question,
    status: r.status,
    askedBy: r.asked_by,
    askedAt: r.asked_at,
    decidedBy: r.decided_by,
    decidedAt: r.decided_at,
    note: r.note,
  };
};
export type Gate = ReturnType<typeof gateFromRow>;


export const handoffFromRow = (row: Row) => {
  const r = rowSchemas().handoffRow.parse(row);
  return {
    id: r.id,
    todoId: r.todo_id,
    from: r.from_agent,
    to: r.to_agent,
    summary: r.summary,
    done: r.done,
    pending: r.pending,
    permissions: r.permissions,
    status: r.status,
    createdAt: r.created_at,
    acceptedAt: r.accepted_at,
  };
};
export type Handoff = ReturnType<typeof handoffFromRow>;


export const agentFromRow = (row: Row) => {
  const r = rowSchemas().agentRow.parse(row);
  return { name: r.name, kind: r.kind, firstSeen: r.first_seen, lastSeen: r.last_seen, holding: r.holding ? r.holding.split(',') : [] };
};
export type Agent = ReturnType<typeof agentFromRow>;

/** The SELECT list that todoFromRow expects (dependencies folded into one column). */
export const TODO_COLUMNS = `t.id, t.goal_id, t.title, t.detail, t.priority, t.status, t.owner, t.lease_expires_at, t.continuation,
  t.reason, t.revision, t.created_at, t.updated_at,
  (SELECT group_concat(depends_on, ',') FROM (SELECT d.depends_on FROM todo_deps d JOIN todos x ON x.id = d.depends_on
    WHERE d.todo_id = t.id ORDER BY x.num)) AS deps`;
export const TODO_EVIDENCE_COUNT = `(SELECT count(*) FROM events e WHERE e.todo_id = t.id AND e.kind = 'evidence') AS evidence_count`;

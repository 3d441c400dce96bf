import * as z from 'zod/mini';
import { COLUMNS, GATE_ACTIONS, GOAL_ACTIONS, NOTICE_ACTIONS, TODO_ACTIONS, type ToHost } from './boardProtocol';

/**
 * The host parses every webview message with these before acting. Ids must look like ids, request ids must be
 * small integers, nothing else gets through (unknown keys are stripped, unknown types refused).
 */
const todoId = z.string().check(z.regex(/^T[1-9][0-9]{0,9}$/));
const gateId = z.string().check(z.regex(/^Q[1-9][0-9]{0,9}$/));
const goalId = z.string().check(z.regex(/^G[1-9][0-9]{0,9}$/));
const turnId = z.string().check(z.regex(/^R[1-9][0-9]{0,9}$/));
const requestId = z.int().check(z.gte(0), z.lte(Number.MAX_SAFE_INTEGER));

const toHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('move'), requestId, todoId, to: z.enum(COLUMNS) }),
  z.object({
    type: z.literal('todoAction'),
    requestId,
    todoId,
    action: z.enum(TODO_ACTIONS),
  }),
  z.object({ type: z.literal('gateAction'), requestId, gateId, action: z.enum(GATE_ACTIONS) }),
  z.object({ type: z.literal('goalAction'), requestId, goalId, action: z.enum(GOAL_ACTIONS) }),
  z.object({ type: z.literal('detail'), requestId, todoId }),
  z.object({ type: z.literal('openArtifact'), path: z.string().check(z.minLength(1), z.maxLength(1000)) }),
  z.object({ type: z.literal('openTurnOutput'), turnId }),
  z.object({ type: z.literal('switchFolder'), folder: z.int().check(z.gte(0), z.lte(999)) }),
  z.object({ type: z.literal('history'), requestId, seq: z.int().check(z.gte(0), z.lte(Number.MAX_SAFE_INTEGER)) }),
  z.object({
    type: z.literal('historyAt'),
    requestId,
    at: z.string().check(z.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,3})?)?Z$/)),
  }),
  z.object({ type: z.literal('historyEnd') }),
  z.object({ type: z.literal('openStory'), goalId: z.nullable(z.string().check(z.regex(/^G[1-9][0-9]{0,9}$/))) }),
  z.object({ type: z.literal('notice'), action: z.enum(NOTICE_ACTIONS) }),
]);

// The schema and the protocol's type must describe the same messages: a change to one alone does not compile.
type Parsed = z.infer<typeof toHost>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const SCHEMA_MATCHES_PROTOCOL: Same<Parsed, ToHost> = true;

export function parseToHost(message: unknown): { ok: true; value: ToHost } | { ok: false; problem: string } {
  const result = toHost.safeParse(message);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  return { ok: false, problem: `${issue?.path.join('.') || 'message'}: ${issue?.message ?? 'invalid'}` };
}

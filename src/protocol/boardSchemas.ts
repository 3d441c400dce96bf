import * as z from 'zod/mini';
import {
  COLUMNS,
  GATE_ACTIONS,
  GOAL_ACTIONS,
  NOTICE_ACTIONS,
  TODO_ACTIONS,
  type DetailAnswer,
  type HistoryAnswer,
  type ResultFailed,
  type ResultOk,
} from './boardProtocol';

/**
 * What the webview sends the host, written once: the schema the host parses every message with before acting is also
 * the messages' type (`ToHost`), so the two cannot drift apart. Ids must look like ids, request ids must be small
 * integers, nothing else gets through (unknown keys are stripped, unknown types refused). The webview imports only the
 * types from here (`import type`), so zod stays out of its bundle.
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
  // The board as it was right after event `seq` (clamped to the log; a number past the end is now): read-only.
  z.object({ type: z.literal('history'), requestId, seq: z.int().check(z.gte(0), z.lte(Number.MAX_SAFE_INTEGER)) }),
  // The board by time: the last event at or before `at`.
  z.object({
    type: z.literal('historyAt'),
    requestId,
    at: z.string().check(z.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,3})?)?Z$/)),
  }),
  // Back to now: the host lets go of the replayed store.
  z.object({ type: z.literal('historyEnd') }),
  // Opens the goal story beside the board.
  z.object({ type: z.literal('openStory'), goalId: z.nullable(z.string().check(z.regex(/^G[1-9][0-9]{0,9}$/))) }),
  // A button of the banner a team store that cannot be reached shows (Retry, Show the Last State).
  z.object({ type: z.literal('notice'), action: z.enum(NOTICE_ACTIONS) }),
]);

/** Webview → host: every message the board sends, as the host's parse lets it through. */
export type ToHost = z.infer<typeof toHost>;

export function parseToHost(message: unknown): { ok: true; value: ToHost } | { ok: false; problem: string } {
  const result = toHost.safeParse(message);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  return { ok: false, problem: `${issue?.path.join('.') || 'message'}: ${issue?.message ?? 'invalid'}` };
}

/**
 * Every request the webview sends (a message with a request id) and the answer the host sends back for it, so
 * neither side names the answer's type by hand. A request type missing here does not compile.
 */
export interface BoardRequests {
  move: ResultOk | ResultFailed;
  todoAction: ResultOk | ResultFailed;
  gateAction: ResultOk | ResultFailed;
  goalAction: ResultOk | ResultFailed;
  /** The card's detail, or why there is none (it went away). */
  detail: DetailAnswer | ResultFailed;
  /** The board at a past moment, or why not (no store, the replay failed). */
  history: HistoryAnswer | ResultFailed;
  historyAt: HistoryAnswer | ResultFailed;
}
export type RequestType = keyof BoardRequests;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** A request as the webview writes it: the channel adds the request id. */
export type BoardRequest<K extends RequestType = RequestType> = DistributiveOmit<Extract<ToHost, { type: K }>, 'requestId'>;
export type AnswerTo<K extends RequestType> = BoardRequests[K];

// Both directions: every message with a request id is in the map, and every entry of the map is such a message.
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const REQUESTS_MAPPED: SameKeys<Extract<ToHost, { requestId: number }>['type'], RequestType> = true;

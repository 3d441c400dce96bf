import * as z from 'zod/mini';
import type { ToStoryHost } from './storyProtocol';

/** The host parses every story-webview message with this before acting (ids must look like ids). */
const toHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('pickGoal'), goalId: z.string().check(z.regex(/^G[1-9][0-9]{0,9}$/)) }),
  z.object({ type: z.literal('openTodo'), todoId: z.string().check(z.regex(/^T[1-9][0-9]{0,9}$/)) }),
  z.object({ type: z.literal('export'), format: z.enum(['html', 'pdf']) }),
]);

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const STORY_SCHEMA_MATCHES_PROTOCOL: Same<z.infer<typeof toHost>, ToStoryHost> = true;

export function parseToStoryHost(message: unknown): { ok: true; value: ToStoryHost } | { ok: false; problem: string } {
  const result = toHost.safeParse(message);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  return { ok: false, problem: `${issue?.path.join('.') || 'message'}: ${issue?.message ?? 'invalid'}` };
}

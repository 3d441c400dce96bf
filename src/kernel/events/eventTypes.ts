import * as z from 'zod/mini';
import { lazy } from '../lazy';

/**
 * Every state change is one of these events. Each carries every fact its state change needs
 * (generated ids, lease tokens, expiry times), so replaying the log rebuilds the tables exactly.
 * The schemas are built on first use: only replay validates event data against them.
 */
export const eventDataSchemas = lazy(() => {
  const str = z.string();
  const nullableStr = z.nullable(z.string());

  const artifactSchema = z.object({ path: str, sha256: str, bytes: z.int().check(z.nonnegative()) });

  return {
    'store.initialized': z.object({ schema: z.int() }),
    'goal.created': z.object({
      id: str,
      num: z.int(),
      title: str,
      objective: str,
      scope: z.array(str),
      turnsPerWindow: z.int(),
      windowHours: z.number(),
      maxConcurrent: z.int(),
      cooldownSeconds: z.int(),
    }),
    'goal.status': z.object({ status: z.enum(['active', 'paused', 'done', 'stopped']), from: str }),
    'todo.added': z.object({
      id: str,
      num: z.int(),
      title: str,
      detail: str,
      priority: z.int(),
      dependsOn: z.array(str),
      key: z.optional(str),
    }),
    // Edits carry only the fields that change.
    'goal.edited': z.object({
      title: z.optional(str),
      objective: z.optional(str),
      scope: z.optional(z.array(str)),
      turnsPerWindow: z.optional(z.int()),
      windowHours: z.optional(z.number()),
      maxConcurrent: z.optional(z.int()),
      cooldownSeconds: z.optional(z.int()),
      background: z.optional(str),
    }),
    'todo.edited': z.object({
      title: z.optional(str),
      detail: z.optional(str),
      priority: z.optional(z.int()),
      dependsOn: z.optional(z.array(str)),
    }),
    // A goal file was applied: the goal is linked to the file, todos to their keys, and the spec applied is kept.
    'goal.file_applied': z.object({ path: str, keys: z.record(str, str), applied: str }),
    'todo.claimed': z.object({ owner: str, leaseToken: str, leaseExpiresAt: str, previousOwner: nullableStr }),
    'todo.renewed': z.object({ leaseExpiresAt: str }),
    'todo.released': z.object({ previousOwner: str, note: nullableStr }),
    'todo.shipped': z.object({ previousOwner: str }),
    'todo.blocked': z.object({ reason: str, previousOwner: nullableStr }),
    'todo.unblocked': z.object({ note: nullableStr }),
    'todo.killed': z.object({ reason: str, previousOwner: nullableStr, cancelledGates: z.array(str) }),
    evidence: z.object({ summary: str, kind: str, artifacts: z.array(artifactSchema) }),
    'gate.asked': z.object({ id: str, num: z.int(), question: str }),
    'gate.decided': z.object({ id: str, status: z.enum(['approved', 'rejected']), note: nullableStr }),
    'quota.spent': z.object({ turnId: str }),
    'handoff.offered': z.object({
      id: str,
      num: z.int(),
      to: str,
      summary: str,
      done: str,
      pending: str,
      permissions: z.array(str),
      supersedes: z.array(str),
    }),
    'handoff.accepted': z.object({ id: str, from: str, leaseToken: str, leaseExpiresAt: str }),
    'turn.started': z.object({ id: str, num: z.int(), agent: str, host: str, promptPath: str }),
    'turn.finished': z.object({
      id: str,
      exitCode: z.int(),
      resultKind: z.enum(['validated_progress', 'validated_completion', 'user_action_required', 'wait', 'host_failure', 'validation_failed']),
      spent: z.boolean(),
    }),
  };
});
type EventSchemas = ReturnType<typeof eventDataSchemas>;

export type EventKind = keyof EventSchemas;
export type EventData<K extends EventKind> = z.infer<EventSchemas[K]>;
export type Artifact = EventData<'evidence'>['artifacts'][number];

export type ActorKind = 'agent' | 'human' | 'kernel';
export interface Actor {
  name: string;
  kind: ActorKind;
}

/** An event as the kernel builds it, before sequence number and hash are assigned. */
export type EventDraft = {
  [K in EventKind]: { kind: K; goalId: string | null; todoId: string | null; data: EventData<K> };
}[EventKind];

export type StoredEvent = EventDraft & {
  seq: number;
  at: string;
  actor: string;
  actorKind: ActorKind;
  prevHash: string;
  hash: string;
};

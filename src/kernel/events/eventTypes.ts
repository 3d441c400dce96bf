import * as z from 'zod/mini';
import { lazy } from '../lazy';
import { RESULT_KINDS } from '../turns/turnQueries';
import { hookEventSchemas } from '../hooks/hookEventSchemas';
import { worktreeEventSchemas } from '../worktrees/worktreeEventSchemas';

/**
 * Every state change is one of these events. Each carries every fact its state change needs
 * (generated ids, lease tokens, expiry times), so replaying the log rebuilds the tables exactly.
 * The schemas are built on first use: only replay validates event data against them.
 */
export const eventDataSchemas = lazy(() => {
  const str = z.string();
  const nullableStr = z.nullable(z.string());

  const artifactSchema = z.object({ path: str, sha256: str, bytes: z.int().check(z.nonnegative()) });
  const nullableInt = z.nullable(z.int());
  const recurrence = z.object({ every: z.optional(z.int()), at: z.optional(str), cron: z.optional(str), tz: str, text: str });
  /** A command the kernel ran (kernel-run evidence). */
  const run = z.object({
    command: str,
    shell: z.boolean(),
    /** The acceptance check this run was, when it ran exactly that. */
    check: nullableStr,
    exitCode: nullableInt,
    durationMs: z.int(),
    outputTail: str,
    outputSha256: str,
    timedOut: z.boolean(),
    error: nullableStr,
  });

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
      tokensPerWindow: z.optional(nullableInt),
      dollarsPerWindow: z.optional(z.nullable(z.number())),
      // Absent in stores from before agents' goals started paused: those goals started active.
      status: z.optional(z.enum(['active', 'paused'])),
      check: z.optional(nullableStr),
    }),
    'goal.check_set': z.object({ check: nullableStr, from: nullableStr }),
    'goal.status': z.object({ status: z.enum(['active', 'paused', 'done', 'stopped']), from: str }),
    'todo.added': z.object({
      id: str,
      num: z.int(),
      title: str,
      detail: str,
      priority: z.int(),
      dependsOn: z.array(str),
      check: z.optional(nullableStr),
      recurrence: z.optional(z.nullable(recurrence)),
      readyAt: z.optional(nullableStr),
      previous: z.optional(nullableStr),
      key: z.optional(str),
    }),
    'todo.check_set': z.object({ check: nullableStr, from: nullableStr }),
    // Edits carry only the fields that change.
    'goal.edited': z.object({
      title: z.optional(str),
      objective: z.optional(str),
      scope: z.optional(z.array(str)),
      turnsPerWindow: z.optional(z.int()),
      windowHours: z.optional(z.number()),
      maxConcurrent: z.optional(z.int()),
      cooldownSeconds: z.optional(z.int()),
      tokensPerWindow: z.optional(nullableInt),
      dollarsPerWindow: z.optional(z.nullable(z.number())),
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
    evidence: z.object({
      summary: str,
      kind: str,
      artifacts: z.array(artifactSchema),
      /** Who produced it: the kernel ran a command, or an agent (or a human) wrote it. Older events: the writer's. */
      source: z.optional(z.enum(['agent', 'kernel'])),
      run: z.optional(run),
      /** Added after its todo shipped (by the agent that shipped it, or a human); absent otherwise. */
      afterShip: z.optional(z.boolean()),
    }),
    'gate.asked': z.object({ id: str, num: z.int(), question: str }),
    'gate.decided': z.object({ id: str, status: z.enum(['approved', 'rejected']), note: nullableStr }),
    'quota.spent': z.object({ turnId: str }),
    // A human accepted the log as it was found broken; `digest` covers every event before this one, as stored.
    'log.accepted': z.object({ firstBadSeq: z.int(), problem: str, digest: str }),
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
    'turn.started': z.object({
      id: str,
      num: z.int(),
      agent: str,
      host: str,
      promptPath: str,
      /** A runner's turn: when it is surely over (its time limit and the runner's grace to end it); absent otherwise. */
      deadlineAt: z.optional(str),
    }),
    'turn.finished': z.object({
      id: str,
      exitCode: z.int(),
      resultKind: z.enum(RESULT_KINDS),
      spent: z.boolean(),
      /** Validated, but not spent: its goal's budget was already full (lowered while it ran); absent otherwise. */
      budgetFull: z.optional(z.boolean()),
      /** What the turn used, when known (checked before it is recorded: src/kernel/turns/usage/usage.ts). */
      usage: z.optional(
        z.object({
          inputTokens: z.int(),
          outputTokens: z.int(),
          cachedTokens: z.int(),
          costUsd: z.nullable(z.number()),
          costSource: z.nullable(z.enum(['host', 'prices'])),
          model: nullableStr,
        }),
      ),
    }),
    'monitor.added': z.object({
      id: str,
      num: z.int(),
      kind: z.enum(['check', 'timer']),
      command: nullableStr,
      everySeconds: nullableInt,
      until: str,
      runLimitSeconds: nullableInt,
      expiresAt: nullableStr,
      nextCheckAt: str,
      note: str,
      /** Who lets its check run: a person added it, it matched a pattern a person allowed, or it waits for a person. */
      approval: z.optional(z.enum(['person', 'pattern', 'pending'])),
      pattern: z.optional(nullableStr),
    }),
    /** A person let an agent's check run (`pattern` null), or a pattern they allowed for the goal now covers it. */
    'monitor.approved': z.object({ id: str, command: str, pattern: nullableStr }),
    /** The patterns of checks agents may set for the goal's monitors without asking (a person's decision). */
    'goal.checks_allowed': z.object({ patterns: z.array(str), from: z.array(str) }),
    /** A ticker took the monitor's next run: no other ticker runs it until `until`. */
    'monitor.run_claimed': z.object({ id: str, n: z.int(), token: str, until: str, nextCheckAt: str }),
    'monitor.checked': z.object({
      id: str,
      n: z.int(),
      token: str,
      startedAt: str,
      exitCode: nullableInt,
      durationMs: z.int(),
      outputTail: str,
      outputSha256: str,
      timedOut: z.boolean(),
      error: nullableStr,
    }),
    'monitor.fired': z.object({ id: str, reason: str, run: nullableInt, result: str, continuation: str }),
    'monitor.expired': z.object({ id: str, result: str, continuation: str }),
    'monitor.cancelled': z.object({ id: str, result: str, continuation: nullableStr }),
    /** A `loopx run` began serving goals (all active ones when `goals` is empty); its agent is recorded as seen. */
    'runner.started': z.object({ pid: z.int(), host: str, goals: z.array(str) }),
    ...hookEventSchemas(),
    ...worktreeEventSchemas(),
  };
});
type EventSchemas = ReturnType<typeof eventDataSchemas>;

export type EventKind = keyof EventSchemas;
export type EventData<K extends EventKind> = z.infer<EventSchemas[K]>;
export type Artifact = EventData<'evidence'>['artifacts'][number];

export type ActorKind = 'agent' | 'human' | 'kernel';
/** How a human's action reached the kernel: VS Code's UI, or an interactive terminal with a typed confirmation. */
export type HumanChannel = 'vscode' | 'tty';
export interface Actor {
  name: string;
  kind: ActorKind;
  /** Set only for humans acting through a channel an agent does not have; recorded in each event's data. */
  channel?: HumanChannel;
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

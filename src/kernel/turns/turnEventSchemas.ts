import * as z from 'zod/mini';
import { RESULT_KINDS } from './turnQueries';
import { TURN_LAUNCHERS } from './turnLaunchers';

/**
 * The events of turns, spread into the kernel's event table (events/eventTypes.ts). Turns and the runners that start
 * them.
 */
export function turnEventSchemas() {
  const str = z.string();
  const nullableStr = z.nullable(z.string());
  return {
    /** A `loopx run` began serving goals (all active ones when `goals` is empty); its agent is recorded as seen. */
    'runner.started': z.object({ pid: z.int(), host: str, goals: z.array(str) }),
    /** A `loopx run` stopped (idle, --once, --max-turns, a signal): a person may want to know nothing runs now. */
    'runner.stopped': z.object({ pid: z.int(), host: str, reason: str, turns: z.int() }),
    'turn.started': z.object({
      id: str,
      num: z.int(),
      agent: str,
      host: str,
      promptPath: str,
      /** A runner's turn: when it is surely over (its time limit and the runner's grace to end it); absent otherwise. */
      deadlineAt: z.optional(str),
      /** Started by a launcher (`loopx run`, VS Code), not by its agent: only the launcher finishes it; absent otherwise. */
      launchedBy: z.optional(z.enum(TURN_LAUNCHERS)),
      /**
       * Whether the host's command kept loopx's files and the hosts' config out of the agent's writes (`enforced`: a
       * built-in host's command with {boundary}) or not (`none`: a custom host, or a command without it); said by the
       * launcher, absent for a turn started from a shell.
       */
      boundary: z.optional(z.enum(['enforced', 'none'])),
      /** A review of the todo's change (todos/review.ts); absent: the todo's own work. */
      role: z.optional(z.enum(['review'])),
    }),
    /**
     * A launched turn's config when its host started (turnConfig.ts): the command line (secret-named values masked), its
     * hash, and each file loopx put in the turn's folder by its hash. Written by the launcher in process; no verb.
     */
    'turn.configured': z.object({
      id: str,
      command: str,
      commandSha256: str,
      files: z.array(z.object({ path: str, sha256: str })),
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
          cacheWriteTokens: z.optional(z.int()),
          costUsd: z.nullable(z.number()),
          costSource: z.nullable(z.enum(['host', 'prices'])),
          model: nullableStr,
        }),
      ),
    }),
  };
}

import * as z from 'zod/mini';
import { SEVERITIES } from '../model';

/**
 * The events of goals, spread into the kernel's event table (events/eventTypes.ts). A goal's life and its quota:
 * created, edited (also from a goal file), its status, a turn's unit spent.
 */
export function goalEventSchemas() {
  const str = z.string();
  const nullableStr = z.nullable(z.string());
  const nullableInt = z.nullable(z.int());
  return {
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
      /** Review asked for at its creation (an agent proposing a goal may ask; only a person changes it later). */
      review: z.optional(z.nullable(reviewPolicySchema())),
    }),
    'goal.check_set': z.object({ check: nullableStr, from: nullableStr }),
    'goal.status': z.object({ status: z.enum(['active', 'paused', 'done', 'stopped']), from: str }),
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
    // A goal file was applied: the goal is linked to the file, todos to their keys, and the spec applied is kept.
    'goal.file_applied': z.object({ path: str, keys: z.record(str, str), applied: str }),
    'quota.spent': z.object({ turnId: str }),
    /** A person chose the host (agent CLI) a goal's turns run on, or cleared it (null); `from` is what it was. */
    'goal.host_set': z.object({ host: nullableStr, from: nullableStr }),
    /** A person set who reviews what its agents ship (goals/goalReview.ts), or turned it off (null). */
    'goal.review_set': z.object({ review: z.nullable(reviewPolicySchema()), from: z.nullable(reviewPolicySchema()) }),
  };
}

/** A goal's review setting as events carry it (model.ts ReviewPolicy). */
function reviewPolicySchema() {
  const nullableStr = z.nullable(z.string());
  return z.object({
    reviewerHost: nullableStr,
    reviewerAgent: nullableStr,
    otherHost: z.boolean(),
    maxRounds: z.int(),
    blocking: z.array(z.enum(SEVERITIES)),
    autoLand: z.optional(z.literal(true)),
  });
}

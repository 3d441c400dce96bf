import * as z from 'zod/mini';

/**
 * The events of todos, spread into the kernel's event table (events/eventTypes.ts). A todo's life: added, edited,
 * claimed and renewed under a lease, released, shipped, blocked, killed.
 */
export function todoEventSchemas() {
  const str = z.string();
  const nullableStr = z.nullable(z.string());
  const recurrence = z.object({ every: z.optional(z.int()), at: z.optional(str), cron: z.optional(str), tz: str, text: str });
  return {
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
      /** Its change is reviewed before it is done, whatever its goal's setting (todos/review.ts); absent: as the goal says. */
      review: z.optional(z.boolean()),
    }),
    'todo.check_set': z.object({ check: nullableStr, from: nullableStr }),
    'todo.edited': z.object({
      title: z.optional(str),
      detail: z.optional(str),
      priority: z.optional(z.int()),
      dependsOn: z.optional(z.array(str)),
    }),
    'todo.claimed': z.object({ owner: str, leaseToken: str, leaseExpiresAt: str, previousOwner: nullableStr }),
    'todo.renewed': z.object({ leaseExpiresAt: str }),
    'todo.released': z.object({ previousOwner: str, note: nullableStr }),
    'todo.shipped': z.object({ previousOwner: str }),
    'todo.blocked': z.object({ reason: str, previousOwner: nullableStr }),
    'todo.unblocked': z.object({ note: nullableStr }),
    'todo.killed': z.object({ reason: str, previousOwner: nullableStr, cancelledGates: z.array(str) }),
  };
}

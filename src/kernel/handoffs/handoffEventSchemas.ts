import * as z from 'zod/mini';

/**
 * The events of handoffs, spread into the kernel's event table (events/eventTypes.ts). A claim offered to another
 * agent, and taken over.
 */
export function handoffEventSchemas() {
  const str = z.string();
  return {
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
  };
}

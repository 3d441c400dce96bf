import * as z from 'zod/mini';

/**
 * The events of gates, spread into the kernel's event table (events/eventTypes.ts). A gate asked of a person, and
 * their decision.
 */
export function gateEventSchemas() {
  const str = z.string();
  const nullableStr = z.nullable(z.string());
  return {
    'gate.asked': z.object({ id: str, num: z.int(), question: str }),
    'gate.decided': z.object({ id: str, status: z.enum(['approved', 'rejected']), note: nullableStr }),
  };
}

import * as z from 'zod/mini';

/**
 * What a command the kernel ran gave back, as the log records it: one shape for kernel-run evidence
 * (`evidence.run`) and a monitor's check (`monitor.checked`), spread into each event's schema.
 */
export function runResultShape() {
  return {
    exitCode: z.nullable(z.int()),
    durationMs: z.int(),
    outputTail: z.string(),
    outputSha256: z.string(),
    timedOut: z.boolean(),
    error: z.nullable(z.string()),
    /** A check's sandbox (`bubblewrap` or `none`, with the network and why); absent on other runs and older events. */
    sandbox: z.optional(z.object({ kind: z.enum(['bubblewrap', 'none']), network: z.boolean(), reason: z.string() })),
  };
}

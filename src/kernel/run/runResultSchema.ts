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
  };
}

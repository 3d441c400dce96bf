import * as z from 'zod/mini';
import { runResultShape } from '../run/runResultSchema';

/**
 * The events of evidence, spread into the kernel's event table (events/eventTypes.ts). Evidence an agent or a person
 * wrote, or a command the kernel ran.
 */
export function evidenceEventSchemas() {
  const str = z.string();
  const nullableStr = z.nullable(z.string());
  const artifactSchema = z.object({ path: str, sha256: str, bytes: z.int().check(z.nonnegative()) });
  /** A command the kernel ran (kernel-run evidence). */
  const run = z.object({
    command: str,
    shell: z.boolean(),
    /** The acceptance check this run was, when it ran exactly that. */
    check: nullableStr,
    ...runResultShape(),
  });
  return {
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
  };
}

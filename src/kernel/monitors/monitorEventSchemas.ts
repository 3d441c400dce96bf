import * as z from 'zod/mini';
import { runResultShape } from '../run/runResultSchema';

/**
 * The events of monitors, spread into the kernel's event table (events/eventTypes.ts). Monitors: added, approved, each
 * run claimed and checked, and how they end; the check patterns a person allowed.
 */
export function monitorEventSchemas() {
  const str = z.string();
  const nullableStr = z.nullable(z.string());
  const nullableInt = z.nullable(z.int());
  return {
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
    'monitor.run_claimed': z.object({
      id: str,
      n: z.int(),
      token: str,
      until: str,
      nextCheckAt: str,
      /** The ticker's process (absent in older events): a ticker on its machine takes the run over once it is gone. */
      holder: z.optional(z.object({ host: str, pid: z.int(), start: z.optional(z.int()) })),
    }),
    'monitor.checked': z.object({
      id: str,
      n: z.int(),
      token: str,
      startedAt: str,
      ...runResultShape(),
    }),
    'monitor.fired': z.object({ id: str, reason: str, run: nullableInt, result: str, continuation: str }),
    'monitor.expired': z.object({ id: str, result: str, continuation: str }),
    'monitor.cancelled': z.object({ id: str, result: str, continuation: nullableStr }),
  };
}

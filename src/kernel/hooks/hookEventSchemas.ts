import * as z from 'zod/mini';

/** What a hook may be run for: events a person must hear about while away (see triggers.ts for how each is found). */
export const HOOK_TRIGGERS = [
  'gate.asked',
  'todo.blocked',
  'monitor.fired',
  'monitor.expired',
  'turn.failed',
  'budget.spent',
  'runner.stopped',
] as const;
export type HookTrigger = (typeof HOOK_TRIGGERS)[number];

/**
 * The events of hooks, spread into the kernel's event table (eventTypes.ts). Hook events name no goal or todo (the
 * event a hook ran for is `seq`): they are bookkeeping about telling a person, not a change to the work, so they
 * never count as progress for should-run or a turn's judgement.
 */
export function hookEventSchemas() {
  const str = z.string();
  const nullableStr = z.nullable(str);
  return {
    /** A person added a hook (VS Code, or a terminal where its id was typed). */
    'hook.added': z.object({
      id: str,
      num: z.int(),
      command: str,
      on: z.array(z.enum(HOOK_TRIGGERS)),
      goal: nullableStr,
      timeoutSeconds: z.int(),
      note: str,
    }),
    'hook.removed': z.object({ id: str }),
    /** A runner or window took the run of a hook for one event: nobody else runs it for that event. */
    'hook.run_claimed': z.object({ id: str, seq: z.int(), trigger: z.enum(HOOK_TRIGGERS), token: str, by: str }),
    'hook.ran': z.object({
      id: str,
      seq: z.int(),
      token: str,
      exitCode: z.nullable(z.int()),
      durationMs: z.int(),
      outputTail: str,
      timedOut: z.boolean(),
      error: nullableStr,
    }),
  };
}

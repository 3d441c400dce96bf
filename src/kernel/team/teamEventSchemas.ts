import * as z from 'zod/mini';

/**
 * The events of a person moving a workspace's store in or out of a team store (`loopx team push | join | leave`),
 * spread into the kernel's event table (eventTypes.ts). Each says where (the team store as host:port/db, never a
 * password), from which machine, and how many events the log held; the person's channel is added by the appender.
 * They change no state: they are the record. All three are a person's (HUMAN_ONLY_KINDS, authority.ts).
 */
export function teamEventSchemas() {
  const where = {
    /** The team store as `host:port/db` (teamErrors.ts teamWhere: no user, no password). */
    database: z.string(),
    /** The machine's host name (os.hostname()). */
    host: z.string(),
  };
  return {
    /** This store moved into the team store: the last event of the moved log (so it is in both). `events`: before it. */
    'team.pushed': z.object({ ...where, events: z.int() }),
    /** This workspace pointed at the team store; `events`: the team log's head when it joined. */
    'team.joined': z.object({ ...where, events: z.int() }),
    /** This workspace moved out with a copy of the team log; `events`: the copy's, before this one. */
    'team.left': z.object({ ...where, events: z.int() }),
  };
}

export type TeamEventKind = keyof ReturnType<typeof teamEventSchemas>;

import * as z from 'zod/mini';
import { lazy } from '../lazy';
import { todoEventSchemas } from '../todos/todoEventSchemas';
import { goalEventSchemas } from '../goals/goalEventSchemas';
import { gateEventSchemas } from '../gates/gateEventSchemas';
import { evidenceEventSchemas } from '../evidence/evidenceEventSchemas';
import { handoffEventSchemas } from '../handoffs/handoffEventSchemas';
import { turnEventSchemas } from '../turns/turnEventSchemas';
import { monitorEventSchemas } from '../monitors/monitorEventSchemas';
import { hookEventSchemas } from '../hooks/hookEventSchemas';
import { worktreeEventSchemas } from '../worktrees/worktreeEventSchemas';
import { teamEventSchemas } from '../team/teamEventSchemas';
import { priceEventSchemas } from '../prices/priceEventSchemas';
import { reviewEventSchemas } from '../todos/reviewEventSchemas';

/**
 * Every state change is one of these events. Each carries every fact its state change needs
 * (generated ids, lease tokens, expiry times), so replaying the log rebuilds the tables exactly.
 * Each noun declares its own events beside its reducers (todos/todoEventSchemas.ts, …); this is the one place they
 * are assembled, with the spine's own two. The schemas are built on first use: only replay validates event data.
 */
export const eventDataSchemas = lazy(() => ({
  'store.initialized': z.object({ schema: z.int() }),
  // A human accepted the log as it was found (broken, or holding decisions this machine's key does not prove);
  // `digest` covers every event before this one, as stored; `decisionsThrough` and `decisionsDigest` name the
  // unproven decisions taken as they are (decisions.ts). firstBadSeq 0: the chain was sound.
  'log.accepted': z.object({
    firstBadSeq: z.int(),
    problem: z.string(),
    digest: z.string(),
    decisionsThrough: z.optional(z.int()),
    decisionsDigest: z.optional(z.string()),
  }),
  // A person's recorded decision about an event the store set aside (setAside.ts): `seq` is that event's, `decision`
  // what they did about it (their words). Afterwards doctor and status no longer warn about it.
  'log.set_aside_handled': z.object({ seq: z.int(), decision: z.string() }),
  ...goalEventSchemas(),
  ...todoEventSchemas(),
  ...evidenceEventSchemas(),
  ...gateEventSchemas(),
  ...handoffEventSchemas(),
  ...turnEventSchemas(),
  ...monitorEventSchemas(),
  ...hookEventSchemas(),
  ...worktreeEventSchemas(),
  ...teamEventSchemas(),
  ...priceEventSchemas(),
  ...reviewEventSchemas(),
}));
type EventSchemas = ReturnType<typeof eventDataSchemas>;

export type EventKind = keyof EventSchemas;
export type EventData<K extends EventKind> = z.infer<EventSchemas[K]>;
export type Artifact = EventData<'evidence'>['artifacts'][number];

export type ActorKind = 'agent' | 'human' | 'kernel';
/** How a human's action reached the kernel: VS Code's UI, or an interactive terminal with a typed confirmation. */
export type HumanChannel = 'vscode' | 'tty';
export interface Actor {
  name: string;
  kind: ActorKind;
  /** Set only for humans acting through a channel an agent does not have; recorded in each event's data. */
  channel?: HumanChannel;
}

/** An event as the kernel builds it, before sequence number and hash are assigned. */
export type EventDraft = {
  [K in EventKind]: { kind: K; goalId: string | null; todoId: string | null; data: EventData<K> };
}[EventKind];

export type StoredEvent = EventDraft & {
  seq: number;
  at: string;
  actor: string;
  actorKind: ActorKind;
  prevHash: string;
  hash: string;
};

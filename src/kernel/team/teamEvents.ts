import { requireHumanChannel } from '../authority';
import type { EventDraft, StoredEvent } from '../events/eventTypes';
import type { UnitOfWork } from '../unitOfWork';
import type { TeamEventKind } from './teamEventSchemas';
import { nodeOs } from '../nodeOs';

const ACTS: Record<TeamEventKind, string> = {
  'team.pushed': 'moving a store into a team store',
  'team.joined': 'pointing a workspace at a team store',
  'team.left': 'moving a workspace out of its team store',
};

/**
 * Records a person's move of a workspace into or out of a team store, in the log the unit of work writes to (where
 * each verb writes it, and why, is said at its call in src/cli/commands/team.ts and teamLeave.ts). A person's act: an agent, or a
 * person without a channel, is refused here as by the verbs; the database refuses the kinds to agents' roles too.
 * `database` is the store as host:port/db (never a password); `events` is how many events the log held before this one.
 */
export function recordTeamMove(tx: UnitOfWork, kind: TeamEventKind, facts: { database: string; events: number }): StoredEvent {
  requireHumanChannel(tx.actor, ACTS[kind]);
  return tx.emit({
    kind,
    goalId: null,
    todoId: null,
    data: { database: facts.database, host: nodeOs().hostname(), events: facts.events },
  } as EventDraft);
}

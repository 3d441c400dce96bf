import type { TimeKind } from '../../shared/storyTypes';

// What the goal story reads of the log, and how a todo's time is counted (story.ts builds the story from it).

/** The kinds a story reads; renewals and evidence (most of a busy log) are skipped in SQL, never parsed. */
export const STORY_KINDS = [
  'todo.added',
  'todo.claimed',
  'todo.released',
  'todo.shipped',
  'todo.blocked',
  'todo.unblocked',
  'todo.killed',
  'gate.asked',
  'gate.decided',
  'monitor.added',
  'monitor.fired',
  'monitor.expired',
  'monitor.cancelled',
  'handoff.offered',
  'handoff.accepted',
  'turn.started',
  'turn.finished',
  // Peer review: a submitted change waits (queued) until a reviewer takes it (working), and a verdict ends the round.
  'todo.submitted',
  'todo.review_claimed',
  'todo.review_released',
  'todo.review_unable',
  'todo.approved',
  'todo.changes_requested',
] as const;

export interface TodoState {
  status: 'open' | 'claimed' | 'blocked' | 'done' | 'review' | 'reviewing';
  gates: Set<string>;
  monitor: boolean;
  since: number;
}

/** Where a todo's time goes right now: a person (a gate, a block) before the world (a monitor) before work. */
export function timeKind(t: TodoState): TimeKind | null {
  if (t.status === 'done') return null;
  if (t.gates.size > 0 || t.status === 'blocked') return 'person';
  if (t.monitor) return 'world';
  return t.status === 'claimed' || t.status === 'reviewing' ? 'working' : 'queued';
}

export const emptyTime = (): Record<TimeKind, number> => ({ working: 0, person: 0, world: 0, queued: 0 });

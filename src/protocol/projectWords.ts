import { countOf } from '../shared/countWords';
import type { AttentionKind, WaitingCounts } from '../shared/projectTypes';

const PARTS: [keyof Omit<WaitingCounts, 'total'>, string, string][] = [
  ['gates', 'gate to decide', 'gates to decide'],
  ['toLand', 'change to land', 'changes to land'],
  ['blocked', 'blocked todo', 'blocked todos'],
  ['setAside', 'event set aside', 'events set aside'],
  ['pausedGoals', 'goal waiting to be started', 'goals waiting to be started'],
  ['failing', 'todo that keeps failing', 'todos that keep failing'],
  ['lapsedLeases', 'lapsed lease', 'lapsed leases'],
  ['heldOpen', 'turn left open', 'turns left open'],
];

/**
 * The order a person looks at their projects in, everywhere (the CLI's list, VS Code's Projects view, the dashboard):
 * what waits on them first (most first; a project that cannot be read last), then the most recently changed, then by name.
 */
export function byWhatWaits(
  a: { name: string; waiting: { total: number } | null; lastActivity: string | null },
  b: { name: string; waiting: { total: number } | null; lastActivity: string | null },
): number {
  const waits = (b.waiting?.total ?? -1) - (a.waiting?.total ?? -1);
  if (waits !== 0) return waits;
  return (b.lastActivity ?? '').localeCompare(a.lastActivity ?? '') || a.name.localeCompare(b.name);
}

/** "1 gate to decide, 2 blocked todos", or "nothing waits on you": the CLI's list and VS Code's Projects view. */
export function waitingWords(waiting: WaitingCounts): string {
  const parts = PARTS.filter(([key]) => waiting[key] > 0).map(([key, one, many]) => countOf(waiting[key], one, many));
  return parts.length > 0 ? parts.join(', ') : 'nothing waits on you';
}

/** A row of what waits on a person, by kind: the dashboard's rows and its notifications. */
export const ATTENTION_WORDS: Record<AttentionKind, string> = {
  gate: 'Gate to decide',
  land: 'Change to land',
  blocked: 'Blocked',
  check: 'Check to allow',
  setAside: 'Event set aside',
  paused: 'Goal to start',
  failing: 'Keeps failing',
  lapsed: 'Lease lapsed',
  heldOpen: 'Turn left open',
};

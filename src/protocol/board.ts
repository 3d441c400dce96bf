import type { Card, CardMonitor, ColumnId } from './boardProtocol';
import { clockTime, untilWords } from './display';

/**
 * The board's rules as plain functions: which column a card is in, what a filter keeps, which moves are allowed
 * and why the others are not. The webview renders with them; the host still asks the kernel, which has the
 * last word. `columnOf` and `leaseLapsed` are the webview's copy of the kernel's rules (`boardColumn` and
 * `readyTodoIds` in kernel/todos/todoQueries.ts, `leaseLive` in the same file), which it cannot import:
 * src/extension/board/boardRules.test.ts runs both on the same todos and fails when they part.
 */
export function leaseLapsed(card: Card, nowIso: string): boolean {
  return card.status === 'claimed' && card.leaseExpiresAt !== null && card.leaseExpiresAt <= nowIso;
}

export function columnOf(card: Card): ColumnId {
  switch (card.status) {
    case 'killed':
      return 'killed';
    case 'shipped':
      return 'shipped';
    case 'blocked':
      return 'blocked';
    case 'claimed':
      return 'claimed';
    default:
      return card.unmetDeps.length > 0 || card.gates.length > 0 || !card.goalActive || card.monitor !== null || card.waitsUntil !== null
        ? 'waiting'
        : 'ready';
  }
}

/** Why a card waits, in words a person reads on the card. */
export function waitingReason(card: Card): string | null {
  if (columnOf(card) !== 'waiting') return null;
  if (!card.goalActive) return `goal ${card.goalId} is not active`;
  if (card.gates.length) return `gate ${card.gates.join(', ')} needs a decision`;
  if (card.unmetDeps.length) return `after ${card.unmetDeps.join(', ')}`;
  if (card.monitor) return monitorSummary(card.monitor);
  if (card.waitsUntil)
    return `${card.recurrence ? `recurs ${card.recurrence} · ` : ''}next ${clockTime(card.waitsUntil, Date.now(), card.recurrenceZone ?? undefined)}`;
  return null;
}

/** "waits on M2: “gh run view 12” until it exits 0", "waits on M3: a timer" */
export function monitorSummary(m: CardMonitor): string {
  return m.kind === 'timer' ? `waits on ${m.id}: a timer` : `waits on ${m.id}: “${m.check ?? ''}” until ${untilWords(m.until)}`;
}

/** A monitor's last run in a few words: "exit 1 (run 3)", "command not found (run 1)". */
export function lastRunSummary(m: CardMonitor): string | null {
  const run = m.lastRun;
  return run ? `${run.error ?? `exit ${run.exitCode}`} (run ${run.n})` : null;
}

export interface BoardFilter {
  goalId: string | null;
  agent: string | null;
  text: string;
}

export function matches(card: Card, filter: BoardFilter): boolean {
  if (filter.goalId && card.goalId !== filter.goalId) return false;
  if (filter.agent && card.owner !== filter.agent) return false;
  const text = filter.text.trim().toLowerCase();
  if (text && !card.id.toLowerCase().includes(text) && !card.title.toLowerCase().includes(text)) return false;
  return true;
}

/** Claim order: priority, then age (the number in the id). */
export function compareCards(a: Card, b: Card): number {
  return a.priority - b.priority || Number(a.id.slice(1)) - Number(b.id.slice(1));
}

export function groupCards(cards: readonly Card[], filter: BoardFilter): Record<ColumnId, Card[]> {
  const columns: Record<ColumnId, Card[]> = { ready: [], waiting: [], claimed: [], blocked: [], shipped: [], killed: [] };
  for (const card of cards) if (matches(card, filter)) columns[columnOf(card)].push(card);
  for (const list of Object.values(columns)) list.sort(compareCards);
  return columns;
}

export type Transition = 'claim' | 'release' | 'ship' | 'block' | 'unblock' | 'kill';

/**
 * A refused move, and the gates whose decision would let it through: the board offers Approve and Reject for them
 * beside the refusal, so the person decides where they are.
 */
export type Refusal = { refused: string; decide?: string[] };

/**
 * The kernel transition a move asks for, or why the move is not allowed. `me` is the person at the board:
 * humans may release or block anyone's claim, but ship only what they hold (or what nobody holds).
 */
export function moveFor(card: Card, to: ColumnId, me: string, nowIso: string): { transition: Transition } | Refusal {
  const answer = moveRule(card, to, me, nowIso);
  // Held back by a pending gate (and by nothing a person must fix first): the decision is the way forward.
  const gated = card.gates.length > 0 && card.goalActive && (to === 'ready' || to === 'claimed' || to === 'shipped');
  return 'refused' in answer && gated && columnOf(card) !== 'blocked' ? { ...answer, decide: [...card.gates] } : answer;
}

function moveRule(card: Card, to: ColumnId, me: string, nowIso: string): { transition: Transition } | Refusal {
  const from = columnOf(card);
  if (from === to) return { refused: `${card.id} is already ${to === 'claimed' ? 'in progress' : to}` };
  if (from === 'shipped' || from === 'killed') return { refused: `${card.id} is ${from}; that is final` };
  const heldByOther = card.status === 'claimed' && card.owner !== me && !leaseLapsed(card, nowIso);
  switch (to) {
    case 'waiting':
      return { refused: 'Waiting is not a place to put work: a todo waits by itself for its dependencies, gates, monitor or time' };
    case 'killed':
      return { transition: 'kill' };
    case 'blocked':
      return { transition: 'block' };
    case 'ready':
      if (from === 'blocked') return { transition: 'unblock' };
      if (from === 'claimed') return { transition: 'release' };
      if (card.monitor) return { refused: `${card.id} ${waitingReason(card)}; cancel the monitor (card menu) to make it ready now` };
      return { refused: `${card.id} waits: ${waitingReason(card)}` };
    case 'claimed':
      if (from === 'waiting') return { refused: `${card.id} cannot be claimed yet: ${waitingReason(card)}` };
      if (from === 'blocked') return { refused: `${card.id} is blocked; unblock it first` };
      return { transition: 'claim' };
    case 'shipped':
      if (card.gates.length) return { refused: `gate ${card.gates.join(', ')} on ${card.id} needs a decision before it ships` };
      if (from === 'waiting') return { refused: `${card.id} cannot ship yet: ${waitingReason(card)}` };
      if (from === 'blocked') return { refused: `${card.id} is blocked; unblock it first` };
      if (heldByOther) return { refused: `${card.id} is held by ${card.owner}; only its holder ships it` };
      return { transition: 'ship' };
  }
}

/** Targets offered in a card's keyboard "Move to…" menu: only allowed ones. */
export function allowedTargets(card: Card, me: string, nowIso: string): ColumnId[] {
  const targets: ColumnId[] = ['ready', 'claimed', 'blocked', 'shipped', 'killed'];
  return targets.filter((to) => 'transition' in moveFor(card, to, me, nowIso));
}

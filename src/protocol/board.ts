import type { Card, CardMonitor, ColumnId } from './boardProtocol';
import { clockTime, untilWords } from './display';

/**
 * The board's rules as plain functions: which column a card is in, what a filter keeps, and the words for a refused
 * move. Which moves are allowed is the kernel's rule (kernel/todos/boardMoves.ts): each card carries its allowed
 * targets and the host asks the kernel for a drag. `columnOf` and `leaseLapsed` are the webview's copy of the
 * kernel's rules (`boardColumn` and `readyTodoIds` in kernel/todos/todoQueries.ts, `leaseLive` in the same file),
 * which it cannot import: src/extension/board/boardRules.test.ts runs both on the same todos and fails when they part.
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
    case 'in_review':
      return 'in_review';
    default:
      return card.unmetDeps.length > 0 || card.gates.length > 0 || !card.goalActive || card.monitor !== null || card.waitsUntil !== null
        ? 'waiting'
        : 'ready';
  }
}

/** Why a card waits, in words a person reads on the card. */
export function waitingReason(card: Card): string | null {
  return columnOf(card) === 'waiting' ? waitsFor(card) || null : null;
}

/** What a todo that is not ready waits for, in words ('' when nothing). */
function waitsFor(todo: MovedTodo): string {
  if (!todo.goalActive) return `goal ${todo.goalId} is not active`;
  if (todo.gates.length) return `gate ${todo.gates.join(', ')} needs a decision`;
  if (todo.unmetDeps.length) return `after ${todo.unmetDeps.join(', ')}`;
  if (todo.monitor) return monitorSummary(todo.monitor);
  if (todo.waitsUntil)
    return `${todo.recurrence ? `recurs ${todo.recurrence} · ` : ''}next ${clockTime(todo.waitsUntil, Date.now(), todo.recurrenceZone ?? undefined)}`;
  return '';
}

/** What a monitor's summary names of it. */
export type MonitorWords = Pick<CardMonitor, 'id' | 'kind' | 'check' | 'until'>;

/** "waits on M2: “gh run view 12” until it exits 0", "waits on M3: a timer" */
export function monitorSummary(m: MonitorWords): string {
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
  const columns: Record<ColumnId, Card[]> = { ready: [], waiting: [], claimed: [], in_review: [], blocked: [], shipped: [], killed: [] };
  for (const card of cards) if (matches(card, filter)) columns[columnOf(card)].push(card);
  for (const list of Object.values(columns)) list.sort(compareCards);
  return columns;
}

/**
 * The kernel's reasons a move is refused (`MoveRefusalCode` in kernel/todos/boardMoves.ts, the move rule's one
 * home); the host words them here, where the board's sentences are. The host's call fails to compile when the
 * kernel names a code this list does not.
 */
export type MoveRefusalCode =
  | 'already_there'
  | 'final'
  | 'not_a_place'
  | 'waits'
  | 'waits_on_monitor'
  | 'not_yet'
  | 'blocked'
  | 'gated'
  | 'held_by_other'
  | 'not_holder'
  | 'person_only'
  | 'in_review';

/** What a refusal's words name of the todo: a card has every field. */
export type MovedTodo = Pick<
  Card,
  'id' | 'goalId' | 'status' | 'owner' | 'goalActive' | 'gates' | 'unmetDeps' | 'waitsUntil' | 'recurrence' | 'recurrenceZone'
> & { monitor: MonitorWords | null };

/** The sentence for a refused move of `todo` to `to`, from the kernel's code. */
export function moveRefusalWords(code: MoveRefusalCode, todo: MovedTodo, to: ColumnId): string {
  const id = todo.id;
  switch (code) {
    case 'already_there':
      return `${id} is already ${to === 'claimed' ? 'in progress' : to}`;
    case 'final':
      return `${id} is ${todo.status}; that is final`;
    case 'not_a_place':
      if (to === 'in_review') return `${id} goes into review when its implementer ships it; it is not moved there by hand`;
      return 'Waiting is not a place to put work: a todo waits by itself for its dependencies, gates, monitor or time';
    case 'waits_on_monitor':
      return `${id} ${waitsFor(todo)}; cancel the monitor (card menu) to make it ready now`;
    case 'waits':
      return `${id} waits: ${waitsFor(todo)}`;
    case 'not_yet':
      return to === 'shipped' ? `${id} cannot ship yet: ${waitsFor(todo)}` : `${id} cannot be claimed yet: ${waitsFor(todo)}`;
    case 'blocked':
      return `${id} is blocked; unblock it first`;
    case 'gated':
      return `gate ${todo.gates.join(', ')} on ${id} needs a decision before it ships`;
    case 'held_by_other':
      return to === 'shipped'
        ? `${id} is held by ${todo.owner ?? 'another'}; only its holder ships it`
        : `${id} is held by ${todo.owner ?? 'another'}; only its holder or a person may ${VERBS[to]} it`;
    case 'not_holder':
      return `${id} is not held by the agent moving it; an agent moves only what it holds`;
    case 'person_only':
      if (todo.status === 'in_review') return `${id} is in review; only its reviewer or a person decides it`;
      return `${id} is blocked; only a person unblocks it`;
    case 'in_review':
      return `${id} is in review: approve it (Shipped), send it back (Ready), or wait for its reviewer`;
  }
}

/** What a move into a column does, as a verb (for an agent's refusal: it may not do that to another's claim). */
const VERBS: Record<ColumnId, string> = {
  ready: 'release',
  waiting: 'move',
  claimed: 'claim',
  in_review: 'review',
  blocked: 'block',
  shipped: 'ship',
  killed: 'kill',
};

import { columnOf } from './board';
import { COLUMN_TITLES, type Card, type ColumnId } from './boardProtocol';

export interface BoardChanges {
  moved: { id: string; title: string; from: ColumnId; to: ColumnId }[];
  added: { id: string; title: string; to: ColumnId }[];
  removed: { id: string; title: string; from: ColumnId }[];
}

/** What changed on the board between a past moment and now: cards that changed column, appeared or went. */
export function changesSince(past: readonly Card[], now: readonly Card[]): BoardChanges {
  const before = new Map(past.map((c) => [c.id, c]));
  const after = new Map(now.map((c) => [c.id, c]));
  const changes: BoardChanges = { moved: [], added: [], removed: [] };
  for (const card of now) {
    const old = before.get(card.id);
    if (!old) changes.added.push({ id: card.id, title: card.title, to: columnOf(card) });
    else if (columnOf(old) !== columnOf(card))
      changes.moved.push({ id: card.id, title: card.title, from: columnOf(old), to: columnOf(card) });
  }
  for (const card of past) if (!after.has(card.id)) changes.removed.push({ id: card.id, title: card.title, from: columnOf(card) });
  return changes;
}

/** "12 changes since then: 7 moved, 5 new" — the heading of the panel shown on returning to now. */
export function changesHeadline(c: BoardChanges): string {
  const total = c.moved.length + c.added.length + c.removed.length;
  if (total === 0) return 'Nothing on the board changed since then';
  const parts = [
    c.moved.length ? `${c.moved.length} moved` : '',
    c.added.length ? `${c.added.length} new` : '',
    c.removed.length ? `${c.removed.length} gone` : '',
  ].filter(Boolean);
  return `${total} change${total === 1 ? '' : 's'} since then: ${parts.join(', ')}`;
}

export function columnTitle(column: ColumnId): string {
  return COLUMN_TITLES[column];
}

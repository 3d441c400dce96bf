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

/**
 * The History bar's time field: one form whatever the browser's language, as the board's clock is 24-hour everywhere
 * (a datetime-local field showed "12/03/2026, 04:20 PM" to every English reader). A moment in the viewer's local time.
 */
export const MOMENT_HINT = 'Type a time as 2026-12-03 14:30, or 14:30 for today';

/** A local moment as the field shows it: "2026-12-03 14:30". */
export function momentFieldText(iso: string): string {
  const d = new Date(iso);
  const pad = (v: number) => String(v).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** What a person typed in the field ("2026-12-03 14:30", "2026-12-03", "14:30" for today) as an ISO time, or null. */
export function parseMomentField(text: string, nowMs: number): string | null {
  const m = /^\s*(?:(\d{4})-(\d{1,2})-(\d{1,2}))?(?:[ T]*(\d{1,2}):(\d{2}))?\s*$/.exec(text);
  if (!m || (m[1] === undefined && m[4] === undefined)) return null;
  const today = new Date(nowMs);
  const [year, month, day] = m[1]
    ? [Number(m[1]), Number(m[2]) - 1, Number(m[3])]
    : [today.getFullYear(), today.getMonth(), today.getDate()];
  const [hour, minute] = m[4] !== undefined ? [Number(m[4]), Number(m[5])] : [0, 0];
  if (month > 11 || day < 1 || day > 31 || hour > 23 || minute > 59) return null;
  const d = new Date(year, month, day, hour, minute);
  // No rolling over: 2026-02-31 is not 3 March.
  if (d.getMonth() !== month || d.getDate() !== day) return null;
  return d.toISOString();
}

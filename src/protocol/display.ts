/** Tiny display helpers shared by the CLI, the extension and the board (no Node or VS Code APIs). */

/**
 * Characters that make text read differently from what it says: bidirectional overrides and isolates, zero-width
 * and other invisible characters, line and paragraph separators. Refused at input (validate.ts) and shown as
 * `<U+202E>` wherever text already stored is displayed. One home for the list: the kernel, CLI, extension and board.
 */
export const DECEPTIVE_CHARS = '\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff';
const DECEPTIVE = new RegExp(`[${DECEPTIVE_CHARS}]`, 'g');
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** "U+202E" */
export function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Makes deceptive characters visible (`<U+202E>`) in text read back from the store; leaves everything else. */
export function revealHidden(text: string): string {
  return text.replace(DECEPTIVE, (c) => `<${codePoint(c)}>`);
}

/** Removes terminal escapes from text read back from the store and makes deceptive characters visible. */
export function clean(text: string | null | undefined): string {
  return revealHidden((text ?? '').replace(CONTROL, '?'));
}

export function oneLine(text: string | null | undefined, max = 100): string {
  const flat = clean(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** "in 29m", "3h ago", "just now". */
export function relativeTime(isoTime: string | null, nowMs: number): string {
  if (!isoTime) return '—';
  const delta = Math.round((Date.parse(isoTime) - nowMs) / 1000);
  const span = Math.abs(delta);
  if (span < 2) return 'just now';
  const text =
    span < 90 ? `${span}s` : span < 5400 ? `${Math.round(span / 60)}m` : span < 172_800 ? `${Math.round(span / 3600)}h` : `${Math.round(span / 86400)}d`;
  return delta >= 0 ? `in ${text}` : `${text} ago`;
}

/** "14:05" today, else "Dec 3 14:05", in the viewer's local time. */
export function clockTime(isoTime: string, nowMs: number): string {
  const d = new Date(isoTime);
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return new Date(nowMs).toDateString() === d.toDateString() ? time : `${d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${time}`;
}

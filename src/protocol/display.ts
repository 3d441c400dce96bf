/** Tiny display helpers shared by the CLI, the extension and the board (no Node or VS Code APIs). */
import { revealHidden } from '../shared/hiddenChars';
import { relativeTime } from '../shared/timeWords';
import { quoteCodeSpans } from '../shared/codeSpans';

// The webview reveals hidden characters and reads relative times too, and imports only from src/protocol.
export { relativeTime, revealHidden };

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Removes terminal escapes from text read back from the store and makes deceptive characters visible. */
export function clean(text: string | null | undefined): string {
  return revealHidden((text ?? '').replace(CONTROL, '?'));
}

export function oneLine(text: string | null | undefined, max = 100): string {
  const flat = clean(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * "14:05" today, else "Dec 3 14:05": a 24-hour clock in the viewer's zone, or in `timeZone` when the text beside it
 * already names a zone ("recurs daily at 09:00 (Europe/Berlin)"): one clock per sentence. The one rule for a clock
 * time everywhere (the CLI, VS Code, the board).
 */
export function clockTime(isoTime: string, nowMs: number, timeZone?: string): string {
  const d = new Date(isoTime);
  const zone = timeZone && validZone(timeZone) ? { timeZone } : {};
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', ...zone });
  const day = (date: Date) => date.toLocaleDateString(undefined, { month: 'short', day: 'numeric', ...zone });
  return day(new Date(nowMs)) === day(d) && Math.abs(d.getTime() - nowMs) < 86_400_000 ? time : `${day(d)} ${time}`;
}

function validZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const ISO_TIME = /\b\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?Z\b/g;

/**
 * Text from the store (a continuation, a monitor's result, a note) as a person reads it in VS Code: exact UTC times
 * ("2026-12-02T08:14:56.008Z") in the reader's local clock ("Dec 2 08:14"), and commands in quotes instead of
 * Markdown backticks, which notifications and tree rows show literally. Agents read the stored text as it is.
 */
export function forPeople(text: string | null | undefined, nowMs: number): string {
  return quoteCodeSpans(clean(text).replace(ISO_TIME, (iso) => clockTime(iso, nowMs)));
}

/** A monitor's condition in words: "exit0" → "it exits 0". */
export function untilWords(until: string): string {
  if (until === 'exit0') return 'it exits 0';
  if (until === 'change') return 'its output changes';
  if (until.startsWith('match:')) return `its output matches ${until.slice('match:'.length)}`;
  return until;
}

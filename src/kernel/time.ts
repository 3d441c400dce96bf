import { InvalidInputError } from './errors';

/** The kernel never reads the wall clock itself: tests pass a fake clock. */
export type Clock = () => number;
export const systemClock: Clock = () => Date.now();

/** Blocks the thread for `ms` (a synchronous caller's pause between tries: the kernel's and SQLite's APIs are synchronous). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * A time as the kernel writes it: ISO 8601 in UTC to the millisecond, exactly what Date's toISOString writes. Not
 * toISOString itself: its first call in a process looks up the machine's time zone (ICU reads /etc/localtime), about
 * 1 ms on Node 20, 22 and 24, where the UTC getters cost 0.05 ms; nearly every agent call writes or compares a time.
 */
export function iso(ms: number): string {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  // Years outside 0–9999 (written ±YYYYYY) and an invalid time (a RangeError) follow toISOString's own rules.
  if (!(year >= 0 && year <= 9999)) return d.toISOString();
  return `${digits(year, 4)}-${digits(d.getUTCMonth() + 1, 2)}-${digits(d.getUTCDate(), 2)}T${digits(d.getUTCHours(), 2)}:${digits(d.getUTCMinutes(), 2)}:${digits(d.getUTCSeconds(), 2)}.${digits(d.getUTCMilliseconds(), 3)}Z`;
}

function digits(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/**
 * The one reading of the contract's durations (`90s`, `30m`, `2h`, `1d`) into seconds: NaN when the text is not one.
 * Flags refuse through `parseDuration`; goal files report a diagnostic (goalFile/lint.ts) from the same reading.
 */
export function durationSeconds(text: string): number {
  const match = /^(\d{1,7})([smhd])$/.exec(text.trim());
  return match ? Number(match[1]) * (UNIT_SECONDS[match[2] as string] as number) : Number.NaN;
}

/** Parses a duration flag or setting into seconds; refuses what is not one, or zero. */
export function parseDuration(text: string, flag = 'duration'): number {
  const seconds = durationSeconds(text);
  if (Number.isNaN(seconds)) {
    throw new InvalidInputError(`${flag} must look like 90s, 30m, 2h or 1d, got ${JSON.stringify(text)}`);
  }
  if (seconds <= 0) throw new InvalidInputError(`${flag} must be longer than zero`);
  return seconds;
}

export function formatDuration(seconds: number): string {
  if (seconds % 86400 === 0 && seconds > 0) return `${seconds / 86400}d`;
  if (seconds % 3600 === 0 && seconds > 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0 && seconds > 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

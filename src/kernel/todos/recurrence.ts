import { Cron } from 'croner';
import type { Recurrence } from '../model';
import { InvalidInputError } from '../errors';
import { formatDuration } from '../time';

/**
 * Recurring todos. Each occurrence is its own todo; when one ships or is killed, the kernel adds the next, which
 * waits until its time. Times of day and cron fields are read in the time zone recorded with the todo (the `--tz`
 * given, else the time zone of the process that added it), so every machine computes the same instants; stored
 * times are UTC. Cron expressions are parsed by croner (5 fields, or @hourly/@daily/@weekly/@monthly/@yearly).
 */
export interface RecurrenceInput {
  every?: number;
  at?: string;
  cron?: string;
  tz?: string;
}

const AT = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DAY = 86400;
const MIN_EVERY = 60;
const MAX_EVERY = 366 * DAY;

export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

function checkTimeZone(tz: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    throw new InvalidInputError(
      `--tz ${JSON.stringify(tz)} is not a time zone`,
      'use an IANA name such as UTC, Europe/Berlin or America/New_York',
    );
  }
}

function cronFor(expression: string, tz: string): Cron {
  return new Cron(expression, { paused: true, mode: '5-part', timezone: tz });
}

/** Validates what `todo add --every/--at/--cron/--tz` asked for; null when the todo does not recur. */
export function parseRecurrence(input: RecurrenceInput): Recurrence | null {
  const { every, at, cron } = input;
  if (every === undefined && cron === undefined) {
    if (at !== undefined || input.tz !== undefined) throw new InvalidInputError('--at and --tz go with --every (or --tz with --cron)');
    return null;
  }
  if (every !== undefined && cron !== undefined) throw new InvalidInputError('a todo recurs either --every D or on --cron EXPR, not both');
  const tz = checkTimeZone(input.tz ?? localTimeZone());
  if (cron !== undefined) {
    if (at !== undefined) throw new InvalidInputError('--at goes with --every; a cron expression has its own time of day');
    const expression = cron.trim().replace(/\s+/g, ' ');
    if (expression.length === 0 || expression.length > 200) throw new InvalidInputError('--cron needs an expression such as "0 9 * * 1-5"');
    try {
      const next = cronFor(expression, tz).nextRun(new Date());
      if (!next) throw new Error('it never runs');
    } catch (error) {
      throw new InvalidInputError(
        `--cron ${JSON.stringify(cron)} is not a cron expression: ${(error as Error).message.replace(/^CronPattern: /, '')}`,
        'five fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5"; or @daily',
      );
    }
    return { cron: expression, tz, text: `cron ${expression} (${tz})` };
  }
  const seconds = every as number;
  if (!Number.isInteger(seconds) || seconds < MIN_EVERY || seconds > MAX_EVERY)
    throw new InvalidInputError('--every must be from 1m to 366d');
  if (at === undefined) return { every: seconds, tz, text: `every ${formatDuration(seconds)}` };
  if (!AT.test(at)) throw new InvalidInputError(`--at must be a time of day HH:MM (00:00 to 23:59), got ${JSON.stringify(at)}`);
  if (seconds % DAY !== 0) throw new InvalidInputError('--at goes with an --every of whole days (1d, 2d, 7d)');
  const days = seconds / DAY;
  return { every: seconds, at, tz, text: `${days === 1 ? 'daily' : `every ${days} days`} at ${at} (${tz})` };
}

/** The calendar day (days since 1970-01-01) of an instant, in a time zone. */
function localDay(ms: number, tz: string): number {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ms));
  return Math.round(Date.parse(`${parts}T00:00:00Z`) / (DAY * 1000));
}

/**
 * When an occurrence is due. `previous` is the time the occurrence before it was due (its ready time, else when it
 * was added), or null for the first. Slots missed while an occurrence stayed open are skipped: the answer is always
 * after `nowMs`. The first occurrence of a plain `--every` is due at once.
 */
export function nextOccurrence(rec: Recurrence, previous: number | null, nowMs: number): number | null {
  if (rec.cron !== undefined) {
    const next = cronFor(rec.cron, rec.tz).nextRun(new Date(Math.max(nowMs, previous ?? nowMs)));
    return next ? next.getTime() : null;
  }
  const every = rec.every as number;
  if (rec.at === undefined) {
    if (previous === null) return null;
    const k = Math.max(1, Math.floor((nowMs - previous) / (every * 1000)) + 1);
    return previous + k * every * 1000;
  }
  const [hh, mm] = rec.at.split(':').map(Number);
  const daily = cronFor(`${mm} ${hh} * * *`, rec.tz);
  const days = every / DAY;
  const anchor = previous === null ? null : localDay(previous, rec.tz);
  let from = new Date(Math.max(nowMs, previous ?? nowMs));
  for (let i = 0; i <= days + 1; i++) {
    const candidate = daily.nextRun(from);
    if (!candidate) return null;
    if (anchor === null || (((localDay(candidate.getTime(), rec.tz) - anchor) % days) + days) % days === 0) return candidate.getTime();
    from = candidate;
  }
  return null;
}

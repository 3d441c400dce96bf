/**
 * Times in words, one rule each, for every reader: the CLI, VS Code, the board, the language server's hovers and
 * the kernel's own sentences (continuations, evidence summaries, the review packet). Plain data in, no imports:
 * the board bundles this file for the browser.
 */

/** "in 29m", "3h ago", "just now". */
export function relativeTime(isoTime: string | null, nowMs: number): string {
  if (!isoTime) return '—';
  const delta = Math.round((Date.parse(isoTime) - nowMs) / 1000);
  const span = Math.abs(delta);
  if (span < 2) return 'just now';
  const text =
    span < 90
      ? `${span}s`
      : span < 5400
        ? `${Math.round(span / 60)}m`
        : span < 172_800
          ? `${Math.round(span / 3600)}h`
          : `${Math.round(span / 86400)}d`;
  return delta >= 0 ? `in ${text}` : `${text} ago`;
}

/**
 * How long something took or has waited, for people: "41 s", "12 min", "1.5 h", "2.0 days". The one spaced form of a
 * span in sentences; the contract's compact form ("24h", what flags and goal files take) is `formatDuration`
 * (src/kernel/time.ts), for echoing a flag or a goal file only.
 */
export function durationWords(ms: number): string {
  // Under half a second is still a second ("within 1 s"), never "0 s" for something that took time.
  if (ms < 90_000) return `${Math.round(ms / 1000) || (ms > 0 ? 1 : 0)} s`;
  if (ms < 90 * 60_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 48 * 3_600_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  return `${(ms / 86_400_000).toFixed(1)} days`;
}

/** How long a command ran: "1.2 s" under ten seconds, "41 s" from there. */
export function runTook(durationMs: number): string {
  return durationMs < 10_000 ? `${(durationMs / 1000).toFixed(1)} s` : `${Math.round(durationMs / 1000)} s`;
}

/** What a run loopx made showed: "ran `npm test`: exit 0 in 41 s" (its error instead of the exit code when it has one). */
export function ranSentence(run: { command: string; exitCode: number | null; error?: string | null; durationMs: number }): string {
  return `ran \`${run.command}\`: ${run.error ?? `exit ${run.exitCode}`} in ${runTook(run.durationMs)}`;
}

export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "3 Dec 16:20", or with `year` "3 Dec 2026 16:20", in the time `offsetMinutes` east of UTC (the story's moments). */
export function momentWords(isoTime: string, offsetMinutes: number, year = false): string {
  const d = new Date(Date.parse(isoTime) + offsetMinutes * 60_000);
  const time = `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}${year ? ` ${d.getUTCFullYear()}` : ''} ${time}`;
}

/**
 * "3 Dec 2026 16:20" in the reader's time (`offsetMinutes` east of UTC), "… UTC" at offset 0: a moment in a document
 * read later or elsewhere (the review packet and page), so always with its date and year.
 */
export function dateTimeWords(isoTime: string, offsetMinutes: number): string {
  return `${momentWords(isoTime, offsetMinutes, true)}${offsetMinutes === 0 ? ' UTC' : ''}`;
}

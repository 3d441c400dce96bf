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

/** How long a command ran: "1.2 s" under ten seconds, "41 s" from there. */
export function runTook(durationMs: number): string {
  return durationMs < 10_000 ? `${(durationMs / 1000).toFixed(1)} s` : `${Math.round(durationMs / 1000)} s`;
}

/** What a run loopx made showed: "ran `npm test`: exit 0 in 41 s" (its error instead of the exit code when it has one). */
export function ranSentence(run: { command: string; exitCode: number | null; error?: string | null; durationMs: number }): string {
  return `ran \`${run.command}\`: ${run.error ?? `exit ${run.exitCode}`} in ${runTook(run.durationMs)}`;
}

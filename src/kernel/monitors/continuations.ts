import { runTook } from '../../shared/timeWords';
import type { Monitor } from './monitorQueries';

/*
 * What a monitor leaves in its todo's continuation when it ends (cancelled, fired, expired): its note and its last
 * run, for the agent that picks the todo up next. Shared by a person's cancel (monitors.ts) and the tick's steps.
 */

/** The note left when the monitor was added, as a line of its own ('' when none). */
export function noteLine(m: Monitor): string {
  return m.note ? `\nNote left when it was added: ${m.note}` : '';
}

/** The monitor's last run: its outcome, how long it took and the end of its output ('' when it never ran). */
export function lastRunLine(m: Monitor): string {
  const run = m.lastRun;
  if (!run) return '';
  const outcome = run.error ?? `exited ${run.exitCode}`;
  return `\nLast run (${run.n}, ${run.at}): ${outcome} after ${runTook(run.durationMs)}.${run.outputTail.trim() ? `\nOutput (end):\n${tailForContinuation(run.outputTail)}` : ''}`;
}

/** The continuation keeps the last lines of output, not all 2,000 characters. */
export function tailForContinuation(tail: string): string {
  const trimmed = tail.trimEnd();
  return trimmed.length > 1200 ? `…${trimmed.slice(-1200)}` : trimmed;
}

import { turnOutcomeWords } from '../../shared/turnOutcomeWords';
import { usageWords } from '../../shared/usageWords';
import type { ShouldRun } from '../../kernel/goals/quotaQueries';
import { type ShouldRunFacts, shouldRunReason } from '../../protocol/shouldRunWords';
import type { Turn } from '../../kernel/turns/turnQueries';
import { clockTime } from '../../protocol/display';
import { countOf } from '../../shared/countWords';
import { setupNotRunWhy } from '../../kernel/worktrees/worktreeSetup';

/**
 * `own`: the goal is full with this runner's own turns. Then what is true is that they run, and the goal's next
 * turn waits for one to end (should-run's wake time is a lease or deadline that never matters while they run).
 */
export function decisionLine(
  goalId: string,
  answer: ShouldRun,
  nowMs: number,
  own?: { running: string[]; max: number },
  facts: Omit<ShouldRunFacts, 'run' | 'reason'> = {},
): string {
  if (answer.run) return `${goalId}: should run: yes (${countOf(answer.remaining, 'turn')} left in the window)`;
  if (own) {
    const n = own.running.length;
    return `${goalId}: ${own.running.join(', ')} ${n === 1 ? 'runs' : 'run'} (${n} of ${own.max} at once) · the next turn starts when ${n === 1 ? 'it ends' : 'one ends'}`;
  }
  const wake = answer.nextWakeAt ? `next wake ${clockTime(answer.nextWakeAt, nowMs)}` : 'waits for a human or a change';
  // The same sentence as VS Code's status bar and the goal hover: the goal's quota and counts say who and why.
  const why = shouldRunReason({ ...facts, ...answer });
  return `${goalId}: should run: no (${why}) · ${wake}`;
}

export function startedLine(turn: Turn, host: string): string {
  return `${turn.goalId}: turn ${turn.id} ${turn.role === 'review' ? 'reviews' : 'on'} ${turn.todoId} · ${host} · started`;
}

/** A turn's end, and why what it used was recorded as unknown or in part (`usageWarnings`), a line each. */
export function endedLine(
  turn: Turn & { usageWarnings?: string[] },
  quota: { used: number; limit: number },
  how: { timedOut: boolean; interrupted: boolean },
): string {
  const why = how.timedOut ? ' (stopped at its time limit)' : how.interrupted ? ' (interrupted)' : '';
  const result = turnOutcomeWords(turn.resultKind);
  const spent = turn.spent ? `quota spent ${quota.used}/${quota.limit}` : `no quota spent (${quota.used}/${quota.limit} used)`;
  const used = turn.usage ? `; used ${usageWords(turn.usage)}` : '';
  const warnings = (turn.usageWarnings ?? []).map((w) => `\n${turn.id}: usage warning: ${w}`).join('');
  return `${turn.id} ended${why}: ${result}, exit code ${turn.exitCode}, ${spent}${used}${warnings}`;
}

export function recoveredLine(turn: Turn, why: string): string {
  return `${turn.id} (left open on ${turn.todoId}) finished now: ${turnOutcomeWords(turn.resultKind)}; ${why}`;
}

export function sleepLine(until: string | null, because: string, nowMs: number): string {
  return until ? `sleeping until ${clockTime(until, nowMs)} (${because}) or a change in the store` : 'sleeping until the store changes';
}

/** A turn the kernel would not start for a reason a person must see (a worktree not made, a setup that failed). */
export function notStartedLine(goalId: string, message: string, data: unknown, nowMs: number): string {
  const d = (data ?? {}) as { retryAt?: string; backingOff?: boolean };
  // A setup that just failed backs off: the runner does not run it again at once (a back-off refusal says so itself).
  const retry = d.retryAt && !d.backingOff ? ` · backing off: its setup is not run again before ${clockTime(d.retryAt, nowMs)}` : '';
  return `${goalId}: ${message}${retry}`;
}

/** A worktree setup not run on an agent's branch (worktreeSetup.ts): the turn goes on, the person is told why. */
export function setupNotRunLine(todoId: string, command: string): string {
  return `${todoId}: the setup command (${command}) was not run in its worktree: ${setupNotRunWhy(todoId)}`;
}

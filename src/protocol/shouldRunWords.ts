/**
 * Should-run answers in words for people (status bar, quick picks, the board). The reason codes stay in JSON and
 * tooltips; this is the one place that turns them into sentences. Plain data in, no kernel import (the board
 * bundles this file for the browser).
 */
export interface ShouldRunFacts {
  run: boolean;
  reason: string;
  goalStatus?: string;
  spent?: number;
  turnsPerWindow?: number;
  windowHours?: number;
  liveClaims?: number;
  /** Turns still ending after their agent let go of the todo: they count as agents on the goal. */
  windingDown?: number;
  maxConcurrent?: number;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "an agent is already on this goal (1 of 1)": why the goal runs or waits, without the reason code. */
export function shouldRunReason(facts: ShouldRunFacts): string {
  switch (facts.reason) {
    case 'ok':
      return 'a todo is ready and the budget allows a turn';
    case 'goal_inactive':
      return `the goal is ${facts.goalStatus && facts.goalStatus !== 'active' ? facts.goalStatus : 'not active'}`;
    case 'no_ready_work':
      return 'no todo is ready (the rest wait on other todos, gates or agents)';
    case 'gate_pending':
      return 'a gate on the goal waits for your decision';
    case 'budget_exhausted':
      return facts.turnsPerWindow !== undefined
        ? `the budget is spent (${facts.spent ?? facts.turnsPerWindow} of ${plural(facts.turnsPerWindow, 'turn')} in ${facts.windowHours ?? 24} h)`
        : 'the budget is spent';
    case 'concurrency_limit': {
      const held = facts.liveClaims === undefined ? undefined : facts.liveClaims + (facts.windingDown ?? 0);
      const busy = held || (facts.maxConcurrent ?? 1);
      const lead = busy === 1 ? 'an agent is already on this goal' : `${busy} agents are already on this goal`;
      return facts.maxConcurrent !== undefined ? `${lead} (${busy} of ${facts.maxConcurrent})` : lead;
    }
    case 'cooldown':
      return 'the goal is cooling down after its last turn';
    case 'no_change':
      return 'its ready todos wait to be tried again after turns on them made no progress';
    default:
      return facts.reason.replace(/_/g, ' ');
  }
}

/** "should run: yes" / "waits: an agent is already on this goal (1 of 1)". */
export function shouldRunSentence(facts: ShouldRunFacts): string {
  return facts.run ? 'ready to run a turn' : `waits: ${shouldRunReason(facts)}`;
}

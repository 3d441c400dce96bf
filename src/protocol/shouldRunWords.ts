/**
 * Should-run answers in words for people (status bar, quick picks, the board). The reason codes stay in JSON and
 * tooltips; this is the one place that turns them into sentences. Plain data in, no kernel import (the board
 * bundles this file for the browser).
 */
import { type BudgetFacts, capWords } from '../shared/usageWords';
import { countOf } from '../shared/countWords';

export interface ShouldRunFacts {
  run: boolean;
  reason: string;
  goalStatus?: string;
  spent?: number;
  turnsPerWindow?: number;
  windowHours?: number;
  liveClaims?: number;
  /** Who holds the goal's live claims (quota's `holders`). */
  holders?: string[];
  /** Of those, the people holding their own claims, which take no agent's slot (quota's `personHolders`). */
  personHolders?: string[];
  /** How many live claims are people's own (quota's `personClaims`). */
  personClaims?: number;
  /** Turns still ending after their agent let go of the todo: they count as agents on the goal. */
  windingDown?: number;
  maxConcurrent?: number;
  /** The goal's todos by status, when the caller has them: "no todo is ready" says why there is none. */
  counts?: Partial<Record<'open' | 'claimed' | 'in_review' | 'blocked' | 'shipped' | 'killed', number>>;
  /** The person reading, so their own claim reads "you". */
  me?: string;
  /** budget_exhausted: which budget is spent, and the window's usage against its caps. */
  budget?: string;
  usage?: BudgetFacts;
  /** no_change: the first retry comes early, while the host's prompt cache still holds the turn's prompt. */
  keepsCacheWarm?: boolean;
}

/** "codex holds a todo of this goal; it allows 1 at a time": why the goal runs or waits, without the reason code. */
export function shouldRunReason(facts: ShouldRunFacts): string {
  switch (facts.reason) {
    case 'ok':
      return 'a todo is ready and the budget allows a turn';
    case 'goal_inactive':
      return `the goal is ${facts.goalStatus && facts.goalStatus !== 'active' ? facts.goalStatus : 'not active'}`;
    case 'no_ready_work':
      return noReadyWork(facts.counts);
    case 'gate_pending':
      return 'a gate on the goal waits for your decision';
    case 'budget_exhausted':
      if ((facts.budget === 'dollars' || facts.budget === 'tokens') && facts.usage)
        return capWords(facts.budget, facts.usage, facts.windowHours ?? 24);
      return facts.turnsPerWindow !== undefined
        ? `the budget is spent (${facts.spent ?? facts.turnsPerWindow} of ${countOf(facts.turnsPerWindow, 'turn')} in ${facts.windowHours ?? 24} h)`
        : 'the budget is spent';
    case 'concurrency_limit':
      return concurrency(facts);
    case 'cooldown':
      return 'the goal is cooling down after its last turn';
    case 'no_change':
      return facts.keepsCacheWarm
        ? "its ready todos wait to be tried again after turns on them made no progress, the next try a little early, while the model's prompt cache still holds the turn's context"
        : 'its ready todos wait to be tried again after turns on them made no progress';
    case 'setup_backoff':
      return 'its ready todos wait: their worktree setup failed and runs again after a pause';
    default:
      return facts.reason.replace(/_/g, ' ');
  }
}

/** Who takes the goal's turns at a time, by name ("you and codex hold its todos; it allows 1 at a time"). */
function concurrency(facts: ShouldRunFacts): string {
  // The slots are the agents': a person holding only their own claims is not why the goal waits.
  const people = new Set(facts.personHolders ?? []);
  const claims = (facts.liveClaims ?? 0) - (facts.personClaims ?? 0);
  const names = (facts.holders ?? []).filter((n) => !people.has(n)).map((n) => (n === facts.me ? 'you' : n));
  names.sort((a, b) => (a === 'you' ? -1 : b === 'you' ? 1 : 0));
  const ending = facts.windingDown ?? 0;
  const parts: string[] = [];
  if (names.length) {
    const who = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
    const one = names.length === 1 && (facts.liveClaims === undefined || claims === 1);
    parts.push(`${who} ${names.length === 1 && names[0] !== 'you' ? 'holds' : 'hold'} ${one ? 'a todo' : 'todos'} of this goal`);
  } else if (claims > 0) parts.push(`${countOf(claims, 'todo')} of this goal ${claims === 1 ? 'is' : 'are'} held`);
  if (ending) parts.push(`${countOf(ending, 'turn')} ${ending === 1 ? 'is' : 'are'} still ending`);
  const lead = parts.length ? parts.join(' and ') : 'the goal has as many turns running as it allows';
  return facts.maxConcurrent !== undefined ? `${lead}; it allows ${facts.maxConcurrent} at a time` : lead;
}

/** Why nothing is ready, from the goal's counts when known: no todos, all shipped, all taken, or all waiting. */
function noReadyWork(counts: ShouldRunFacts['counts']): string {
  if (!counts) return 'no todo is ready (the rest wait on other todos, gates, monitors or their time)';
  const { open = 0, claimed = 0, in_review: inReview = 0, blocked = 0, shipped = 0 } = counts;
  if (open + claimed + inReview + blocked === 0) return shipped > 0 ? 'every todo has shipped' : 'it has no todos yet';
  if (open === 0) {
    const left = [claimed ? `${claimed} in progress` : '', inReview ? `${inReview} in review` : '', blocked ? `${blocked} blocked` : '']
      .filter(Boolean)
      .join(', ');
    return `nothing is left to start (${left})`;
  }
  return open === 1
    ? 'its one open todo is not ready (it waits on another todo, a gate, a monitor or its time)'
    : `none of its ${open} open todos is ready (they wait on other todos, gates, monitors or their time)`;
}

/** True when a goal has todos and every one that counts has shipped: time to mark it done. */
export function allShipped(counts: ShouldRunFacts['counts']): boolean {
  if (!counts) return false;
  const { open = 0, claimed = 0, in_review: inReview = 0, blocked = 0, shipped = 0 } = counts;
  return shipped > 0 && open + claimed + inReview + blocked === 0;
}

/** "should run: yes" / "waits: codex holds a todo of this goal; it allows 1 at a time". */
export function shouldRunSentence(facts: ShouldRunFacts): string {
  return facts.run ? 'ready to run a turn' : `waits: ${shouldRunReason(facts)}`;
}

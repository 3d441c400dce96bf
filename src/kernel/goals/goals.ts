import type { Kernel, Tx } from '../kernel';
import type { Goal, GoalStatus, ReviewPolicy, ReviewPolicyInput } from '../model';
import { InvalidInputError, IllegalTransitionError } from '../errors';
import { formatId, optionalText, requireText } from '../validate';
import { parseScope } from '../workspacePaths';
import { hasHumanChannel, requireHumanChannel, resumeNeedsHuman } from '../authority';
import { parseCheck, requireHumanForCheck } from '../checks/checks';
import { checkWorktreeBase, setWorktreeInTx } from '../worktrees/worktreeSetting';
import { getGoal } from './goalQueries';
import { reviewPolicy } from './goalReview';
import { nextNum } from '../model';

export interface GoalInput {
  title: string;
  objective?: string;
  scope?: string[];
  turnsPerWindow?: number;
  windowHours?: number;
  maxConcurrent?: number;
  cooldownSeconds?: number;
  /** Caps on what the window's turns use: tokens (in and out) and US dollars; undefined or null: none. */
  tokensPerWindow?: number | null;
  dollarsPerWindow?: number | null;
  /** The acceptance check for the goal's todos (human only). */
  check?: string;
  /** Each todo's turns work in their own git worktree, on a branch made from this base (src/kernel/worktrees/). */
  worktree?: string;
  /**
   * Another agent reviews each change before it is done (goalReview.ts). Anyone creating a goal may ask for it (an
   * agent proposing one too); changing or turning it off later is a person's decision (setGoalReview).
   */
  review?: ReviewPolicyInput;
}

export const GOAL_DEFAULTS = { turnsPerWindow: 20, windowHours: 24, maxConcurrent: 1, cooldownSeconds: 0 } as const;

export interface GoalQuota {
  turnsPerWindow: number;
  windowHours: number;
  maxConcurrent: number;
  cooldownSeconds: number;
}

function wholeNumber(value: number, field: string, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InvalidInputError(`${field} must be a whole number from ${min} to ${max}`);
  }
}

/** The budget's caps in tokens and dollars, checked: one home for their ranges (the CLI and goal files both come here). */
export function usageCaps(input: Pick<GoalInput, 'tokensPerWindow' | 'dollarsPerWindow'>): {
  tokensPerWindow: number | null;
  dollarsPerWindow: number | null;
} {
  const tokens = input.tokensPerWindow ?? null;
  if (tokens !== null && (!Number.isInteger(tokens) || tokens < 1 || tokens > 1_000_000_000_000))
    throw new InvalidInputError('tokens must be a whole number from 1 to 1000000000000 per window');
  const dollars = input.dollarsPerWindow ?? null;
  if (dollars !== null && (!Number.isFinite(dollars) || dollars <= 0 || dollars > 1_000_000))
    throw new InvalidInputError('dollars must be an amount above 0 and at most 1000000 per window');
  return { tokensPerWindow: tokens, dollarsPerWindow: dollars === null ? null : Math.round(dollars * 100) / 100 };
}

/**
 * The caps a goal file names, checked and rounded by usageCaps: a cap left out stays out (the file does not manage
 * it), null stays null (the file clears it).
 */
export function checkCaps(input: Pick<GoalInput, 'tokensPerWindow' | 'dollarsPerWindow'>): Partial<ReturnType<typeof usageCaps>> {
  const caps = usageCaps(input);
  return {
    ...(input.tokensPerWindow !== undefined ? { tokensPerWindow: caps.tokensPerWindow } : {}),
    ...(input.dollarsPerWindow !== undefined ? { dollarsPerWindow: caps.dollarsPerWindow } : {}),
  };
}

/**
 * Every quota range, in one home: `goal create`, a goal file's apply (the goal it creates and the quota it changes)
 * and the file's diagnostics all check through here. Checks the fields given; returns them unchanged.
 */
export function checkQuota<Q extends Partial<GoalQuota>>(quota: Q): Q {
  if (quota.turnsPerWindow !== undefined) wholeNumber(quota.turnsPerWindow, 'turns', 0, 100_000);
  if (quota.maxConcurrent !== undefined) wholeNumber(quota.maxConcurrent, 'max concurrent', 1, 1000);
  if (quota.cooldownSeconds !== undefined) wholeNumber(quota.cooldownSeconds, 'cooldown', 0, 30 * 86400);
  const windowHours = quota.windowHours;
  if (windowHours !== undefined && (!Number.isFinite(windowHours) || windowHours <= 0 || windowHours > 24 * 366)) {
    throw new InvalidInputError('window hours must be a number above 0 and at most 8784 (a year)');
  }
  return quota;
}

/** A new goal's fields, checked and with the defaults filled in. */
export interface NewGoal {
  title: string;
  objective: string;
  scope: string[];
  quota: GoalQuota;
  /** Caps on what the window's turns use (usageCaps), null where there is none. */
  caps: { tokensPerWindow: number | null; dollarsPerWindow: number | null };
  check: string | null;
  /** The base of its turns' worktrees (checked against the repository by createGoal), or null. */
  worktreeBase?: string | null;
  /** Who reviews its changes, asked for at its creation; null or absent: no review. */
  review?: ReviewPolicy | null;
}

/** The rules every new goal passes, whoever creates it (`goal create`, the extension, a goal file's apply). */
export function checkNewGoal(input: GoalInput): NewGoal {
  const title = requireText(input.title, 'title');
  const objective = optionalText(input.objective, 'objective');
  const scope = [...new Set((input.scope ?? []).map(parseScope))];
  const { turnsPerWindow, maxConcurrent, cooldownSeconds, windowHours } = input;
  const given = Object.fromEntries(
    Object.entries({ turnsPerWindow, maxConcurrent, cooldownSeconds, windowHours }).filter(([, v]) => v !== undefined),
  );
  const quota = { ...GOAL_DEFAULTS, ...checkQuota(given) };
  return { title, objective, scope, quota, caps: usageCaps(input), check: parseCheck(input.check) };
}

/**
 * The one place a goal is created (goal.created): a human through VS Code or a terminal creates it active; anyone
 * else (an agent, or a "human" without a channel) creates it paused: an agent may propose work and a budget, a human
 * starts it. Setting its check is a person's decision. Returns the new goal's id.
 */
export function createGoalInTx(tx: Tx, emit: Tx['emit'], goal: NewGoal, startPaused = false): string {
  if (goal.check !== null) requireHumanForCheck(tx, 'creating a goal with a check');
  // An agent may ask for review of its goal, never for its changes to land unseen: that is a person's standing decision.
  if (goal.review?.autoLand)
    requireHumanChannel(tx.actor, 'letting approved changes land on their own', {
      message: `letting approved changes land on their own is a person's setting; ${tx.actor.kind} ${tx.actor.name} may ask for review, not for that`,
      hint: 'leave autoLand out; a person turns it on with Set Review… or loopx goal set-review --auto-land',
    });
  const num = nextNum(tx.db, 'goals');
  const id = formatId('goal', num);
  emit({
    kind: 'goal.created',
    goalId: id,
    todoId: null,
    data: {
      id,
      num,
      title: goal.title,
      objective: goal.objective,
      scope: goal.scope,
      ...goal.quota,
      ...(goal.caps.tokensPerWindow !== null ? { tokensPerWindow: goal.caps.tokensPerWindow } : {}),
      ...(goal.caps.dollarsPerWindow !== null ? { dollarsPerWindow: goal.caps.dollarsPerWindow } : {}),
      // Active only when a person made it through VS Code or a confirmed terminal, and did not ask for it paused.
      status: hasHumanChannel(tx.actor) && !startPaused ? 'active' : 'paused',
      ...(goal.check !== null ? { check: goal.check } : {}),
      ...(goal.review ? { review: goal.review } : {}),
    },
  });
  if (goal.worktreeBase) setWorktreeInTx(tx.emit.bind(tx), id, goal.worktreeBase, null);
  return id;
}

/** A goal and its quota policy (see createGoalInTx for who creates it active). */
export function createGoal(kernel: Kernel, input: GoalInput): Goal {
  kernel.requireActor();
  const goal = checkNewGoal(input);
  if (input.worktree !== undefined) goal.worktreeBase = checkWorktreeBase(kernel.root, input.worktree);
  if (input.review) goal.review = reviewPolicy(input.review);
  return kernel.write((tx) => getGoal(tx.db, createGoalInTx(tx, tx.emit, goal)));
}

/** Allowed goal status moves. Done and stopped may be reopened by resume: a human changed their mind. */
const GOAL_MOVES: Record<GoalStatus, readonly GoalStatus[]> = {
  active: ['paused', 'done', 'stopped'],
  paused: ['active', 'done', 'stopped'],
  done: ['active'],
  stopped: ['active'],
};

export function setGoalStatus(kernel: Kernel, goalId: string, status: GoalStatus): Goal {
  kernel.requireActor();
  return kernel.write((tx) => {
    const goal = getGoal(tx.db, goalId);
    if (goal.status === status) return goal;
    if (!GOAL_MOVES[goal.status].includes(status)) {
      throw new IllegalTransitionError(`goal ${goalId} is ${goal.status}; it cannot become ${status}`);
    }
    if (status === 'active' && resumeNeedsHuman(tx.db, goalId)) requireHumanChannel(tx.actor, `to resume goal ${goalId}`);
    tx.emit({ kind: 'goal.status', goalId, todoId: null, data: { status, from: goal.status } });
    return getGoal(tx.db, goalId);
  });
}

import type { Kernel } from '../kernel';
import type { Goal, GoalStatus } from '../model';
import { InvalidInputError, IllegalTransitionError } from '../errors';
import { formatId, optionalText, requireText } from '../validate';
import { parseScope } from '../workspacePaths';
import { getGoal, nextNum } from '../queries/lookups';
import { hasHumanChannel, requireHumanChannel, resumeNeedsHuman } from '../authority';
import { parseCheck, requireHumanForCheck } from './checks';

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
}

export const GOAL_DEFAULTS = { turnsPerWindow: 20, windowHours: 24, maxConcurrent: 1, cooldownSeconds: 0 } as const;

function positiveInt(value: number | undefined, field: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InvalidInputError(`${field} must be a whole number from ${min} to ${max}`);
  }
  return value;
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
 * A goal and its quota policy. A human through VS Code or a terminal creates it active; anyone else (an agent, or a
 * "human" without a channel) creates it paused: an agent may propose work and a budget, a human starts it.
 */
export function createGoal(kernel: Kernel, input: GoalInput): Goal {
  const actor = kernel.requireActor();
  const title = requireText(input.title, 'title');
  const objective = optionalText(input.objective, 'objective');
  const scope = [...new Set((input.scope ?? []).map(parseScope))];
  const turnsPerWindow = positiveInt(input.turnsPerWindow, 'turns', GOAL_DEFAULTS.turnsPerWindow, 0, 100_000);
  const maxConcurrent = positiveInt(input.maxConcurrent, 'max concurrent', GOAL_DEFAULTS.maxConcurrent, 1, 1000);
  const cooldownSeconds = positiveInt(input.cooldownSeconds, 'cooldown', GOAL_DEFAULTS.cooldownSeconds, 0, 30 * 86400);
  const windowHours = input.windowHours ?? GOAL_DEFAULTS.windowHours;
  if (!Number.isFinite(windowHours) || windowHours <= 0 || windowHours > 24 * 366) {
    throw new InvalidInputError('window hours must be a number above 0 and at most 8784 (a year)');
  }
  const { tokensPerWindow, dollarsPerWindow } = usageCaps(input);
  const check = parseCheck(input.check);
  if (check !== null) requireHumanForCheck(kernel, 'creating a goal with a check');
  return kernel.write((tx) => {
    const num = nextNum(tx.db, 'goals');
    const id = formatId('goal', num);
    tx.emit({
      kind: 'goal.created',
      goalId: id,
      todoId: null,
      data: {
        id,
        num,
        title,
        objective,
        scope,
        turnsPerWindow,
        windowHours,
        maxConcurrent,
        cooldownSeconds,
        ...(tokensPerWindow !== null ? { tokensPerWindow } : {}),
        ...(dollarsPerWindow !== null ? { dollarsPerWindow } : {}),
        status: hasHumanChannel(actor) ? 'active' : 'paused',
        ...(check !== null ? { check } : {}),
      },
    });
    return getGoal(tx.db, id);
  });
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

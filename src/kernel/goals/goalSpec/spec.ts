import { canonicalJson } from '../../events/canonical';
import type { ReviewPolicy, ReviewPolicyInput } from '../../model';

/**
 * A goal spec: what a goal file says, as plain data. The kernel plans and applies specs; reading and writing the
 * files themselves (YAML, Markdown, positions) lives in src/goalFile, so the kernel never touches a goal file.
 */
export interface GoalSpecTodo {
  /** Stable slug the file names the todo by; matched against the store's todo key. */
  key: string;
  /** The store id the file says this todo is (export writes it, so a first apply links existing todos). */
  id?: string;
  title: string;
  detail: string;
  priority: number;
  /** Keys of todos in the same file, or ids (`T12`) of todos in the store. */
  after: string[];
  /** How it recurs (as `todo add --every/--at/--cron/--tz`); set when the todo is added, never changed by a file. */
  recurrence?: { every?: number; at?: string; cron?: string; tz?: string };
  /** The todo's own acceptance check (a person's decision); null clears it; left out, the file does not manage it. */
  check?: string | null;
  /** Its change is reviewed whatever the goal's setting; asked for when the todo is added, never changed by a file. */
  review?: boolean;
}

/** The turn budget: a goal file's quota keys other than the usage caps (each left out: not managed by the file). */
export interface TurnQuota {
  turnsPerWindow: number;
  windowHours: number;
  maxConcurrent: number;
  cooldownSeconds: number;
}

export interface GoalSpecQuota extends Partial<TurnQuota> {
  /**
   * Caps on what the window's turns use (tokens in and out; US dollars). A number sets the cap, null clears it, and
   * left out the file does not manage it: a cap set with `goal create --tokens/--dollars` stays as it is.
   */
  tokensPerWindow?: number | null;
  dollarsPerWindow?: number | null;
}

export interface GoalSpec {
  /** The store id the file says its goal is (export writes it); otherwise the goal is the one linked to the path. */
  goal?: string;
  title: string;
  objective: string;
  scope: string[];
  /** Fields left out are not managed by the file: apply leaves them as the store has them. */
  quota: GoalSpecQuota;
  /** The Markdown body: the goal's background. */
  background: string;
  /** The goal's acceptance check (a person's decision); null clears it; left out, the file does not manage it. */
  check?: string | null;
  /** Patterns of checks agents may set for the goal's monitors unasked (a person's decision); left out, not managed. */
  allowedChecks?: string[];
  /** The base of its turns' worktrees (a person's decision once the goal exists); null: off; left out, not managed. */
  worktree?: string | null;
  /** The command that makes a fresh worktree ready (a person's decision); null: none; left out, not managed. */
  worktreeSetup?: string | null;
  /** Who reviews its changes (a person's decision once the goal exists; asked for by anyone for a new goal); null: off. */
  review?: ReviewPolicyInput | null;
  todos: GoalSpecTodo[];
}

export const KEY_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const QUOTA_FIELDS = ['turnsPerWindow', 'windowHours', 'maxConcurrent', 'cooldownSeconds'] as const;
export const CAP_FIELDS = ['tokensPerWindow', 'dollarsPerWindow'] as const;
export type CapField = (typeof CAP_FIELDS)[number];
/** What an apply sets of a goal's quota: the whole turn budget, and the caps the file manages. */
export type AppliedQuota = TurnQuota & Pick<GoalSpecQuota, CapField>;

/** A goal's turn budget: the base a file's quota keys are laid over (caps only when the file names them). */
export function fileQuota(policy: TurnQuota): TurnQuota {
  return {
    turnsPerWindow: policy.turnsPerWindow,
    windowHours: policy.windowHours,
    maxConcurrent: policy.maxConcurrent,
    cooldownSeconds: policy.cooldownSeconds,
  };
}

/** The quota export writes: the turn budget, and each cap the goal has (a goal without caps leaves them out). */
export function exportQuota(policy: TurnQuota & Record<CapField, number | null>): GoalSpecQuota {
  return {
    ...fileQuota(policy),
    ...(policy.tokensPerWindow !== null ? { tokensPerWindow: policy.tokensPerWindow } : {}),
    ...(policy.dollarsPerWindow !== null ? { dollarsPerWindow: policy.dollarsPerWindow } : {}),
  };
}

/** What an apply made true, kept on the goal: a later difference the file did not make is drift in the store. */
export interface AppliedState {
  title: string;
  objective: string;
  scope: string[];
  /** Caps only when the file managed them (absent in states applied before files had them). */
  quota: AppliedQuota;
  background: string;
  /** Checks the file set (absent when the file did not manage them, and in states applied before files had them). */
  check?: string | null;
  allowedChecks?: string[];
  worktree?: string | null;
  worktreeSetup?: string | null;
  review?: ReviewPolicy | null;
  todos: Record<string, { title: string; detail: string; priority: number; dependsOn: string[]; check?: string | null }>;
}

export function encodeApplied(state: AppliedState): string {
  return canonicalJson(state);
}

export function decodeApplied(text: string | null): AppliedState | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as AppliedState;
  } catch {
    return null;
  }
}

/** Turns a title into a key: lower-case words joined by dashes, at most 48 characters. */
export function slugKey(title: string): string {
  const slug = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  return slug || 'todo';
}

export function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}

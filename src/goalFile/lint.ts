import { LoopxError } from '../kernel/errors';
import { optionalText, requireText } from '../kernel/validate';
import { parseScope } from '../kernel/workspacePaths';
import { type GoalFileDiagnostic, type Range, didYouMean } from './diagnostics';
import type { LooseFrontMatter } from './schema';
import { parseRecurrence } from '../kernel/todos/recurrence';
import { parseSetup } from '../kernel/worktrees/worktreeSetup';
import { reviewPolicy } from '../kernel/goals/goalReview';
import type { ReviewPolicyInput } from '../kernel/model';
import { parseCheck } from '../kernel/checks/checks';
import { checkCaps, checkQuota } from '../kernel/goals/goals';
import type { GoalSpecQuota } from '../kernel/goals/goalSpec/spec';
import type { PathSegment } from './yamlDocument';
import { findCycle } from '../shared/findCycle';
import { durationSeconds } from '../kernel/time';

/** Where a path of the front matter sits (`['todos', 2, 'key']`); its key with `key: true`. */
export type RangeOf = (path: readonly PathSegment[], options?: { key?: boolean }) => Range | null;

const FIRST: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } };
const STORE_ID = /^T[1-9][0-9]{0,9}$/;

/**
 * The checks past the shape: the same text rules the kernel enforces, durations, duplicate keys, `after` entries
 * that name no todo, cycles, and fields this store does not run yet. Each problem points at the entry at fault.
 * Parts that failed the shape are left out of `fm` (reported already); `mayBeHiddenKey` says whether a key could be
 * in a part a YAML error damaged, where an `after` entry naming it may be right.
 */
export function lintFrontMatter(
  fm: LooseFrontMatter,
  rangeOf: RangeOf,
  mayBeHiddenKey: (key: string) => boolean = () => false,
): GoalFileDiagnostic[] {
  const out: GoalFileDiagnostic[] = [];
  const at = (path: readonly PathSegment[], key = false) => rangeOf(path, { key }) ?? FIRST;
  const error = (path: readonly PathSegment[], message: string, code: string, extra: Partial<GoalFileDiagnostic> = {}) =>
    out.push({ severity: 'error', range: at(path), message, code, ...extra });
  const kernelRule = (path: readonly PathSegment[], check: () => unknown, code = 'invalid_text') => {
    try {
      check();
    } catch (e) {
      if (!(e instanceof LoopxError)) throw e;
      error(path, e.message, code);
    }
  };

  if (fm.title !== undefined) kernelRule(['title'], () => requireText(fm.title, 'title'));
  kernelRule(['objective'], () => optionalText(fm.objective, 'objective'));
  const scope = fm.scope === undefined ? [] : typeof fm.scope === 'string' ? [fm.scope] : fm.scope;
  scope.forEach((s, i) => kernelRule(typeof fm.scope === 'string' ? ['scope'] : ['scope', i], () => parseScope(s)));
  out.push(...quotaProblems(fm.quota ?? {}, at));
  if (typeof fm.check === 'string') kernelRule(['check'], () => parseCheck(fm.check as string));
  // Whether the base names a branch is git's to say: apply checks it against the repository.
  if (typeof fm.worktree === 'string' && fm.worktree.trim())
    kernelRule(['worktree'], () => requireText(fm.worktree as string, 'the worktree base'));
  if (typeof fm.worktreeSetup === 'string' && fm.worktreeSetup.trim())
    kernelRule(['worktreeSetup'], () => parseSetup(fm.worktreeSetup as string));
  if (fm.review) kernelRule(['review'], () => reviewPolicy(fm.review as ReviewPolicyInput));

  const todos = fm.todos ?? [];
  const firstIndex = new Map<string, number>();
  const ids = new Map<string, number>();
  todos.forEach((t, i) => {
    if (!t) return;
    const first = t.key === undefined ? undefined : firstIndex.get(t.key);
    if (first !== undefined)
      error(['todos', i, 'key'], `todo key \`${t.key}\` is used twice (first in todo ${first + 1})`, 'duplicate_key');
    else if (t.key !== undefined) firstIndex.set(t.key, i);
    if (t.id !== undefined) {
      if (ids.has(t.id)) error(['todos', i, 'id'], `${t.id} is named by two todos`, 'duplicate_id');
      ids.set(t.id, i);
    }
    if (t.title !== undefined) kernelRule(['todos', i, 'title'], () => requireText(t.title, 'title'));
    kernelRule(['todos', i, 'detail'], () => optionalText(t.detail, 'detail'));
    if (typeof t.check === 'string') kernelRule(['todos', i, 'check'], () => parseCheck(t.check as string));
    out.push(...recurrenceProblems(t, i, at));
  });
  todos.forEach((t, i) =>
    (t?.after ?? []).forEach((ref, j) => {
      if (firstIndex.has(ref) || STORE_ID.test(ref) || mayBeHiddenKey(ref)) return;
      const suggestion = didYouMean(ref, firstIndex.keys());
      const hint = suggestion ? `; did you mean \`${suggestion}\`?` : '';
      error(
        ['todos', i, 'after', j],
        `\`after\` names \`${ref}\`, which is no todo key in this file${hint}`,
        'unknown_after',
        suggestion ? { suggestion } : {},
      );
    }),
  );
  const cycle = todoCycle(todos, firstIndex);
  if (cycle) {
    const [i, j] = cycle.edge;
    error(['todos', i, 'after', j], `the todos wait for each other in a cycle: ${cycle.keys.join(' → ')}`, 'cycle');
  }
  return out;
}

type Todo = NonNullable<LooseFrontMatter['todos']>[number] & object;

/** `every`, `at`, `cron` and `tz` checked as the kernel checks `todo add --every/--at/--cron/--tz`, each at its value. */
function recurrenceProblems(t: Todo, i: number, at: (path: readonly PathSegment[], key?: boolean) => Range): GoalFileDiagnostic[] {
  const error = (field: string, message: string, code: string): GoalFileDiagnostic => ({
    severity: 'error',
    range: at(['todos', i, field]),
    message,
    code,
  });
  if (t.every === undefined && t.cron === undefined) {
    const stray = t.at !== undefined ? 'at' : t.tz !== undefined ? 'tz' : null;
    return stray
      ? [error(stray, `\`${stray}\` goes with \`every\`${stray === 'tz' ? ' or `cron`' : ''}; this todo does not recur`, 'bad_recurrence')]
      : [];
  }
  let every: number | undefined;
  if (t.every !== undefined) {
    every = goalFileSeconds(t.every);
    if (Number.isNaN(every) || every < 60 || every > 366 * 86400) {
      return [
        error(
          'every',
          `\`every\` must be a duration from 1m to 366d (s, m, h or d), like 1d or 12h, not ${JSON.stringify(t.every)}`,
          'bad_duration',
        ),
      ];
    }
  }
  try {
    recurrenceOf(t, every);
    return [];
  } catch (e) {
    if (!(e instanceof LoopxError)) throw e;
    const message = e.message.replace(/--(every|at|cron|tz)\b/g, '`$1`');
    const field =
      t.every !== undefined && t.cron !== undefined
        ? 'cron'
        : (/^`(at|cron|tz)`/.exec(message)?.[1] ?? (t.cron !== undefined ? 'cron' : t.at !== undefined ? 'at' : 'every'));
    return [error(field, message, 'bad_recurrence')];
  }
}

/** The recurrence the kernel would record for this todo (throws its refusal). */
export function recurrenceOf(
  t: Pick<Todo, 'every' | 'at' | 'cron' | 'tz'>,
  every = t.every === undefined ? undefined : goalFileSeconds(t.every),
) {
  return parseRecurrence({ every, at: t.at, cron: t.cron, tz: t.tz });
}

/** A goal file's duration: `90s`, `30m`, `2h`, `1d` (read by the kernel's `durationSeconds`), or a bare number of seconds (YAML `0`). NaN when it does not parse. */
export function goalFileSeconds(value: string | number): number {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : Number.NaN;
  return durationSeconds(value);
}

/** Durations that are not one, and values outside the kernel's ranges (what `goal create` refuses, in its words). */
function quotaProblems(q: NonNullable<LooseFrontMatter['quota']>, at: (path: readonly PathSegment[]) => Range): GoalFileDiagnostic[] {
  const out: GoalFileDiagnostic[] = [];
  const seconds = (field: 'window' | 'cooldown'): number | undefined => {
    const value = q[field];
    if (value === undefined) return undefined;
    const s = goalFileSeconds(value);
    if (!Number.isNaN(s)) return s;
    const like = field === 'window' ? '24h' : '10m';
    const message = `\`quota.${field}\` must be a duration like ${like} (s, m, h or d), not ${JSON.stringify(value)}`;
    out.push({ severity: 'error', range: at(['quota', field]), message, code: 'bad_duration' });
    return undefined;
  };
  const window = seconds('window');
  const cooldown = seconds('cooldown');
  const fields: [string, GoalSpecQuota][] = [
    ['turns', { turnsPerWindow: q.turns }],
    ['window', { windowHours: window === undefined ? undefined : window / 3600 }],
    ['maxConcurrent', { maxConcurrent: q.maxConcurrent }],
    ['cooldown', { cooldownSeconds: cooldown }],
  ];
  fields.push(['tokens', { tokensPerWindow: q.tokens }], ['dollars', { dollarsPerWindow: q.dollars }]);
  for (const [field, quota] of fields) {
    try {
      checkQuota(quota);
      checkCaps(quota);
    } catch (e) {
      if (!(e instanceof LoopxError)) throw e;
      out.push({ severity: 'error', range: at(['quota', field]), message: e.message, code: 'out_of_range' });
    }
  }
  return out;
}

/** A cycle among the todos' `after` keys, and the `after` entry that closes it (where the diagnostic points). */
function todoCycle(
  todos: NonNullable<LooseFrontMatter['todos']>,
  index: Map<string, number>,
): { keys: string[]; edge: [number, number] } | null {
  const after = (i: number) => (todos[i]?.after ?? []).map((ref) => index.get(ref));
  const loop = findCycle(todos.keys(), (i) => after(i).filter((k): k is number => k !== undefined));
  if (!loop) return null;
  // The walk stops at the first `after` entry of the loop's last todo that leads back into it.
  const [from, to] = loop.slice(-2) as [number, number];
  return { keys: loop.map((n) => todos[n]?.key as string), edge: [from, after(from).indexOf(to)] };
}

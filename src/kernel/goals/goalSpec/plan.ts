import type { SqliteDb } from '../../db/sqliteDb';
import type { Actor } from '../../events/eventTypes';
import { requireHumanChannel } from '../../authority';
import { formatDuration } from '../../time';
import { type Goal, type Todo, type TodoStatus, TODO_COLUMNS, goalFromRow, isTerminalStatus, todoFromRow } from '../../model';
import { IllegalTransitionError, InvalidInputError, NotAllowedError, NotFoundError, RefusedError } from '../../errors';
import { GOAL_DEFAULTS, checkCaps } from '../goals';
import {
  type AppliedQuota,
  type AppliedState,
  CAP_FIELDS,
  type GoalSpec,
  type GoalSpecTodo,
  QUOTA_FIELDS,
  decodeApplied,
  fileQuota,
  sameList,
} from './spec';
import { findCycle } from '../../../shared/findCycle';
import { getGoal } from '../goalQueries';
import { reviewPolicy } from '../goalReview';
import { canonicalJson } from '../../events/canonical';

/** One field the apply would change. `drift`: the file still says what the last apply wrote; the store moved since. */
export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
  drift: boolean;
}

export interface PlannedTodo {
  key: string;
  id: string | null;
  title: string;
  status: TodoStatus | null;
  changes: FieldChange[];
}

export interface GoalPlan {
  path: string;
  /** null when the apply creates the goal. */
  goalId: string | null;
  create: boolean;
  goalChanges: FieldChange[];
  added: PlannedTodo[];
  changed: PlannedTodo[];
  /** Todos the file named before (they have a key) and no longer does: killed only with prune. */
  removed: { key: string; id: string; title: string; status: TodoStatus }[];
  prune: boolean;
  /** Shipped or killed todos the file would change: history is not rewritten, so these are left alone. */
  skipped: PlannedTodo[];
  /** The goal's todos that were added outside the file (no key); the file does not manage them. */
  unlisted: string[];
  /** The goal's link to this file, or a todo's key, is new: recorded even when nothing else changes. */
  relink: boolean;
  /** Goal and todo changes the apply would make (the link is not counted). */
  changeCount: number;
}

/** What apply needs beyond the plan: the goal and todos as the store has them, and each file todo's store id. */
export interface PlanWork {
  goal: Goal | null;
  byKey: Map<string, Todo>;
  /** Each file todo's dependencies: store ids, or `+key` for a todo the apply adds. */
  deps: Map<string, string[]>;
  target: AppliedState;
}

const STORE_ID = /^T[1-9][0-9]{0,9}$/;

/**
 * What applying `spec` would change, checked against every rule first. `actor` decides what it may do: an agent
 * may add and change todos but not set quota, checks or prune; setting or changing a check (goal or todo) is a
 * person's decision through a human channel (VS Code, a confirmed terminal), like `goal set-check`.
 */
export function planGoalSpec(
  db: SqliteDb,
  spec: GoalSpec,
  path: string,
  actor: Actor,
  options: { prune?: boolean; preview?: boolean } = {},
): { plan: GoalPlan; work: PlanWork } {
  const who = actor.kind;
  const goal = matchGoal(db, spec, path);
  const todos = goal ? goalTodos(db, goal.id) : [];
  const applied = goal
    ? decodeApplied(db.prepare('SELECT file_applied FROM goals WHERE id = ?').get(goal.id)?.file_applied as string | null)
    : null;
  const byKey = matchTodos(spec.todos, todos);
  const deps = resolveDeps(db, spec.todos, byKey);
  checkCycles(db, spec.todos, byKey, deps);

  const quota = { ...fileQuota(goal?.policy ?? GOAL_DEFAULTS), ...definedQuota(spec) };
  const target: AppliedState = {
    title: spec.title,
    objective: spec.objective,
    scope: spec.scope,
    quota,
    background: spec.background,
    todos: {},
    ...(spec.check !== undefined ? { check: spec.check } : {}),
    ...(spec.allowedChecks !== undefined ? { allowedChecks: spec.allowedChecks } : {}),
    ...(spec.worktree !== undefined ? { worktree: spec.worktree } : {}),
    ...(spec.worktreeSetup !== undefined ? { worktreeSetup: spec.worktreeSetup } : {}),
    ...(spec.review !== undefined ? { review: spec.review === null ? null : reviewPolicy(spec.review) } : {}),
  };
  const goalChanges = goal ? diffGoal(goal, target, applied) : [];
  if (who === 'agent' && goalChanges.some((c) => c.field.startsWith('quota.'))) {
    throw new NotAllowedError(
      "a goal file applied by an agent may not change the goal's quota",
      'a person applies quota changes: run `loopx goal apply` without --agent',
    );
  }
  if (who === 'agent' && goal === null && Object.keys(definedQuota(spec)).length > 0 && !defaultQuota(quota)) {
    throw new NotAllowedError('a goal file applied by an agent may not set a quota', 'a person creates goals with a quota');
  }

  checkWorktreeAuthority(spec, goal, goalChanges, actor, options.preview ?? false);
  checkReviewAuthority(goal, goalChanges, actor, options.preview ?? false);

  const added: PlannedTodo[] = [];
  const changed: PlannedTodo[] = [];
  const skipped: PlannedTodo[] = [];
  for (const t of spec.todos) {
    const dependsOn = deps.get(t.key) ?? [];
    const existing = byKey.get(t.key);
    const stored = {
      title: t.title,
      detail: t.detail,
      priority: t.priority,
      dependsOn,
      ...(t.check !== undefined ? { check: t.check } : {}),
    };
    if (existing) checkRecurrence(t, existing);
    if (!existing) {
      added.push({ key: t.key, id: null, title: t.title, status: null, changes: [] });
      continue;
    }
    target.todos[t.key] = stored;
    const changes = diffTodo(existing, stored, applied?.todos[t.key]);
    if (changes.length === 0) continue;
    const planned = { key: t.key, id: existing.id, title: t.title, status: existing.status, changes };
    (isTerminalStatus(existing.status) ? skipped : changed).push(planned);
  }
  const checkEffects = [
    ...goalChanges.filter((c) => c.field === 'check').map(() => `the check of goal ${goal?.id}`),
    ...goalChanges.filter((c) => c.field === 'allowedChecks').map(() => `the checks agents may set for goal ${goal?.id}`),
    ...(!goal && spec.allowedChecks?.length ? ['the checks agents may set for the new goal'] : []),
    ...(!goal && spec.check ? ['the check of the new goal'] : []),
    ...changed.filter((t) => t.changes.some((c) => c.field === 'check')).map((t) => `the check of todo ${t.id} (${t.key})`),
    ...spec.todos.filter((t) => !byKey.has(t.key) && t.check).map((t) => `the check of new todo ${t.key}`),
  ];
  if (checkEffects.length > 0) {
    const what = `setting ${checkEffects.slice(0, 3).join(', ')}${checkEffects.length > 3 ? ` and ${checkEffects.length - 3} more` : ''}`;
    if (who === 'agent') {
      throw new NotAllowedError(
        `a goal file applied by an agent may not set acceptance checks (the file would change ${checkEffects.length === 1 ? 'one' : checkEffects.length}: ${what.replace(/^setting /, '')}); nothing was applied`,
        'a person applies it in VS Code (Apply to store) or in an interactive terminal; or remove the `check` entries',
      );
    }
    // A preview (dry run) shows a person what the apply would need their channel for; it changes nothing.
    if (!options.preview) requireHumanChannel(actor, what);
  }
  if (goal && added.length > 0 && (goal.status === 'done' || goal.status === 'stopped')) {
    throw new IllegalTransitionError(`goal ${goal.id} is ${goal.status}; resume it before the file adds todos`);
  }
  const fileKeys = new Set(spec.todos.map((t) => t.key));
  const matchedIds = new Set([...byKey.values()].map((t) => t.id));
  const removed = todos
    .filter((t) => t.key !== null && !fileKeys.has(t.key) && !matchedIds.has(t.id) && !isTerminalStatus(t.status))
    .map((t) => ({ key: t.key as string, id: t.id, title: t.title, status: t.status }));
  if (options.prune && removed.length > 0 && who === 'agent') {
    throw new NotAllowedError(
      'pruning kills todos, which a person decides; an agent may not prune',
      'apply without --prune, or ask a person',
    );
  }
  const unlisted = todos.filter((t) => t.key === null && !matchedIds.has(t.id) && t.status !== 'killed').map((t) => t.id);
  const relink = !goal || goal.filePath !== path || [...byKey].some(([key, t]) => t.key !== key);
  const changeCount = (goal ? 0 : 1) + goalChanges.length + added.length + changed.length + (options.prune ? removed.length : 0);
  return {
    plan: {
      path,
      goalId: goal?.id ?? null,
      create: !goal,
      goalChanges,
      added,
      changed,
      removed,
      prune: options.prune ?? false,
      skipped,
      unlisted,
      relink,
      changeCount,
    },
    work: { goal, byKey, deps, target },
  };
}

/** The quota keys the file names; its caps checked and rounded as `goal create` rounds them (one home: checkCaps). */
function definedQuota(spec: GoalSpec): Partial<AppliedQuota> {
  const turns = Object.fromEntries(QUOTA_FIELDS.filter((f) => spec.quota[f] !== undefined).map((f) => [f, spec.quota[f]]));
  return { ...turns, ...checkCaps(spec.quota) };
}

/** Whether a new goal's quota is the default one: the default turn budget and no caps. */
function defaultQuota(quota: AppliedQuota): boolean {
  return QUOTA_FIELDS.every((f) => quota[f] === GOAL_DEFAULTS[f]) && CAP_FIELDS.every((f) => (quota[f] ?? null) === null);
}

function matchGoal(db: SqliteDb, spec: GoalSpec, path: string): Goal | null {
  const row = db.prepare('SELECT * FROM goals WHERE file_path = ?').get(path);
  const linked = row ? goalFromRow(row) : null;
  if (spec.goal === undefined) return linked;
  if (linked && linked.id !== spec.goal) {
    throw new InvalidInputError(
      `the file says it is goal ${spec.goal}, but ${path} was applied to goal ${linked.id}`,
      `change \`goal:\` to ${linked.id}, or remove it`,
    );
  }
  return linked ?? getGoal(db, spec.goal);
}

function goalTodos(db: SqliteDb, goalId: string): Todo[] {
  return db.prepare(`SELECT ${TODO_COLUMNS} FROM todos t WHERE t.goal_id = ? ORDER BY t.num`).all(goalId).map(todoFromRow);
}

/** A file todo is its goal's todo with the same key; else the todo its `id` names (a first apply after export). */
function matchTodos(fileTodos: readonly GoalSpecTodo[], todos: readonly Todo[]): Map<string, Todo> {
  const keyed = new Map(todos.filter((t) => t.key !== null).map((t) => [t.key as string, t]));
  const byId = new Map(todos.map((t) => [t.id, t]));
  const matched = new Map<string, Todo>();
  for (const t of fileTodos) {
    const byKey = keyed.get(t.key);
    if (byKey && t.id !== undefined && byKey.id !== t.id) {
      throw new InvalidInputError(
        `todo ${t.key} is ${byKey.id} in the store, but the file says ${t.id}`,
        `change its id to ${byKey.id}, or remove the id`,
      );
    }
    const todo = byKey ?? (t.id !== undefined ? byId.get(t.id) : undefined);
    if (t.id !== undefined && !todo)
      throw new NotFoundError('todo', t.id, 'the file names a todo this goal does not have; remove its `id:` to add it');
    if (todo && todo.key !== null && todo.key !== t.key) {
      throw new InvalidInputError(
        `${todo.id} has key ${todo.key} in the store, but the file calls it ${t.key}`,
        `rename the key back to ${todo.key}`,
      );
    }
    if (todo) matched.set(t.key, todo);
  }
  return matched;
}

function resolveDeps(db: SqliteDb, fileTodos: readonly GoalSpecTodo[], byKey: Map<string, Todo>): Map<string, string[]> {
  const keys = new Set(fileTodos.map((t) => t.key));
  const known = db.prepare('SELECT 1 AS x FROM todos WHERE id = ?');
  const deps = new Map<string, string[]>();
  for (const t of fileTodos) {
    const resolved = t.after.map((ref) => {
      if (keys.has(ref)) return byKey.get(ref)?.id ?? `+${ref}`;
      if (STORE_ID.test(ref) && known.get(ref)) return ref;
      if (STORE_ID.test(ref)) throw new NotFoundError('todo', ref, `todo ${t.key} waits for ${ref}, which the store does not have`);
      throw new InvalidInputError(`todo ${t.key} waits for ${JSON.stringify(ref)}, which is no key in this file`);
    });
    deps.set(t.key, [...new Set(resolved)]);
  }
  return deps;
}

/** Refuses a dependency cycle in the store as it would be after the apply (file todos override their stored deps). */
function checkCycles(db: SqliteDb, fileTodos: readonly GoalSpecTodo[], byKey: Map<string, Todo>, deps: Map<string, string[]>): void {
  const fileNode = new Map<string, string>(); // node id → key
  for (const t of fileTodos) fileNode.set(byKey.get(t.key)?.id ?? `+${t.key}`, t.key);
  const storeDeps = db.prepare('SELECT depends_on FROM todo_deps WHERE todo_id = ?');
  const next = (node: string): string[] => {
    const key = fileNode.get(node);
    if (key !== undefined) return deps.get(key) ?? [];
    return storeDeps.all(node).map((r) => String(r.depends_on));
  };
  const loop = findCycle(fileNode.keys(), next);
  if (loop) {
    const cycle = loop.map((n) => fileNode.get(n) ?? n);
    throw new RefusedError(
      'dependency_cycle',
      `the dependencies would form a cycle: ${cycle.join(' → ')}`,
      'remove one of these `after` entries',
    );
  }
}

function change(
  field: string,
  from: unknown,
  to: unknown,
  before: unknown,
  equal = (a: unknown, b: unknown) => a === b,
): FieldChange | null {
  if (equal(from, to)) return null;
  return { field, from, to, drift: before !== undefined && equal(before, to) };
}

const listEqual = (a: unknown, b: unknown) => sameList(a as string[], b as string[]);

/** A todo's recurrence is fixed when it is added: a file that says otherwise for an existing todo is refused. */
function checkRecurrence(t: GoalSpecTodo, todo: Todo): void {
  const file = t.recurrence;
  const store = todo.recurrence;
  const same = !file
    ? !store
    : !!store &&
      file.every === store.every &&
      file.at === store.at &&
      file.cron === store.cron &&
      (file.tz === undefined || file.tz === store.tz);
  if (same) return;
  const says = file
    ? file.cron !== undefined
      ? `cron ${file.cron}`
      : `every ${formatDuration(file.every ?? 0)}${file.at ? ` at ${file.at}` : ''}`
    : 'no recurrence';
  throw new InvalidInputError(
    `todo ${t.key} (${todo.id}) ${store ? `recurs ${store.text}` : 'does not recur'} in the store, but the file says ${says}: a goal file cannot change an existing todo's recurrence`,
    store
      ? `put back what the store says, or end the series (loopx todo kill ${todo.id} --end-series) and give the todo a new key`
      : 'give the recurring todo a new key (a new todo), or remove every/cron',
  );
}

/**
 * Where a goal's turns work, and what runs in a new worktree unattended, are a person's decisions, as with `goal
 * set-worktree`: an agent's file may not change them (it may ask for worktrees for a goal it creates, as `goal create
 * --worktree` may, but never a setup command), and a person applies them through a human channel.
 */
function checkWorktreeAuthority(spec: GoalSpec, goal: Goal | null, changes: FieldChange[], actor: Actor, preview: boolean): void {
  const effects = goal
    ? changes.filter((c) => c.field === 'worktree' || c.field === 'worktreeSetup').map((c) => c.field)
    : spec.worktreeSetup
      ? ['worktreeSetup']
      : [];
  if (effects.length === 0) return;
  const what = effects.map((f) => (f === 'worktree' ? `where goal ${goal?.id}'s turns work` : 'the setup command of its worktrees'));
  if (actor.kind === 'agent')
    throw new NotAllowedError(
      `a goal file applied by an agent may not change ${what.join(' or ')}; nothing was applied`,
      'a person applies it in VS Code (Apply to store) or in an interactive terminal; or remove the `worktree` keys',
    );
  if (!preview) requireHumanChannel(actor, `changing ${what.join(' and ')}`);
}

/**
 * Who reviews a goal's changes is a person's decision once the goal exists, as with `goal set-review`: an agent's file
 * may ask for review on a goal it creates (as `goal create --review` may), never change it on one that exists.
 */
function checkReviewAuthority(goal: Goal | null, changes: FieldChange[], actor: Actor, preview: boolean): void {
  if (!goal || !changes.some((c) => c.field === 'review')) return;
  if (actor.kind === 'agent')
    throw new NotAllowedError(
      `a goal file applied by an agent may not change who reviews goal ${goal.id}'s changes; nothing was applied`,
      'a person applies it in VS Code (Apply to store) or in an interactive terminal; or remove the `review` key',
    );
  if (!preview) requireHumanChannel(actor, `changing who reviews goal ${goal.id}'s changes`);
}

const samePolicy = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);

function diffGoal(goal: Goal, target: AppliedState, applied: AppliedState | null): FieldChange[] {
  const changes = [
    target.review !== undefined ? change('review', goal.review, target.review, applied?.review, samePolicy) : null,
    target.worktree !== undefined ? change('worktree', goal.worktreeBase, target.worktree, applied?.worktree) : null,
    target.worktreeSetup !== undefined ? change('worktreeSetup', goal.worktreeSetup, target.worktreeSetup, applied?.worktreeSetup) : null,
    target.check !== undefined ? change('check', goal.check, target.check, applied?.check) : null,
    target.allowedChecks !== undefined
      ? change('allowedChecks', goal.allowedChecks, target.allowedChecks, applied?.allowedChecks, listEqual)
      : null,
    change('title', goal.title, target.title, applied?.title),
    change('objective', goal.objective, target.objective, applied?.objective),
    change('scope', goal.scope, target.scope, applied?.scope, listEqual),
    change('background', goal.background, target.background, applied?.background),
    ...QUOTA_FIELDS.map((f) => change(`quota.${f}`, goal.policy[f], target.quota[f], applied?.quota[f])),
    // A cap the file leaves out is not managed: only the ones it names are compared (null: no cap).
    ...CAP_FIELDS.map((f) =>
      target.quota[f] !== undefined ? change(`quota.${f}`, goal.policy[f], target.quota[f], applied?.quota[f]) : null,
    ),
  ];
  return changes.filter((c): c is FieldChange => c !== null);
}

function diffTodo(todo: Todo, target: AppliedState['todos'][string], applied: AppliedState['todos'][string] | undefined): FieldChange[] {
  const changes = [
    change('title', todo.title, target.title, applied?.title),
    change('detail', todo.detail, target.detail, applied?.detail),
    change('priority', todo.priority, target.priority, applied?.priority),
    change('after', todo.dependsOn, target.dependsOn, applied?.dependsOn, listEqual),
    target.check !== undefined ? change('check', todo.check, target.check, applied?.check) : null,
  ];
  return changes.filter((c): c is FieldChange => c !== null);
}

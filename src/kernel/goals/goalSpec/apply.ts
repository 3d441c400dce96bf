import type { Kernel, Tx } from '../../kernel';
import type { Goal } from '../../model';
import { optionalText, parsePriority, requireText } from '../../validate';
import { parseScope } from '../../workspacePaths';
import { checkCaps, checkNewGoal, checkQuota, createGoalInTx } from '../goals';
import { InvalidInputError } from '../../errors';
import { type FieldChange, type GoalPlan, type PlanWork, planGoalSpec } from './plan';
import { type GoalSpec, KEY_PATTERN, encodeApplied } from './spec';
import { parseCheck, setGoalCheckInTx, setTodoCheckInTx } from '../../checks/checks';
import { addTodoInTx, killInTx } from '../../todos/todos';
import { allowChecksInTx } from '../../monitors/monitors';
import { parsePatterns } from '../../monitors/checkPatterns';
import { parseRecurrence } from '../../todos/recurrence';
import { checkWorktreeBase, setWorktreeInTx } from '../../worktrees/worktreeSetting';
import { setReviewInTx } from '../goalReview';
import type { ReviewPolicy } from '../../model';
import { parseSetup } from '../../worktrees/worktreeSetup';
import { TEXT_LIMITS } from '../../../shared/textLimits';
import { getTodoCore } from '../../todos/todoQueries';

export interface ApplyOptions {
  /** Workspace-relative path of the file (posix separators): the goal's link to it. */
  path: string;
  dryRun?: boolean;
  prune?: boolean;
  /** A goal the file creates starts paused even for a person (a preset: reviewed before anything runs). */
  startPaused?: boolean;
}

export interface ApplyResult {
  plan: GoalPlan;
  applied: boolean;
  goalId: string | null;
  /** Events the apply appended (0 for a dry run, or when store and file already agree). */
  events: number;
}

/**
 * Makes the store say what a goal file says, as ordinary kernel events in one transaction: every check runs before
 * the first event, and any refusal leaves the store as it was. Applying the same spec twice appends nothing.
 */
export function applyGoalSpec(kernel: Kernel, input: GoalSpec, options: ApplyOptions): ApplyResult {
  const actor = kernel.requireActor();
  const checked = checkSpec(input);
  // The base is checked against the repository here, before the write: git never runs under the store's lock.
  const spec = checked.worktree ? { ...checked, worktree: checkWorktreeBase(kernel.root, checked.worktree) } : checked;
  if (options.dryRun) {
    const { plan } = kernel.read((db) => planGoalSpec(db, spec, options.path, actor, { prune: options.prune, preview: true }));
    return { plan, applied: false, goalId: plan.goalId, events: 0 };
  }
  return kernel.write((tx) => {
    const { plan, work } = planGoalSpec(tx.db, spec, options.path, tx.actor, { prune: options.prune });
    let events = 0;
    const emit: Tx['emit'] = (draft, as) => {
      events++;
      return tx.emit(draft, as);
    };
    const goalId = work.goal?.id ?? createGoal(emit, tx, spec, work, options.startPaused === true);
    const edits = goalEdits(plan.goalChanges.filter((c) => !OWN_EVENTS.has(c.field)));
    if (Object.keys(edits).length > 0) emit({ kind: 'goal.edited', goalId, todoId: null, data: edits });
    for (const c of plan.goalChanges.filter((g) => g.field === 'check'))
      setGoalCheckInTx(emit, goalId, c.to as string | null, c.from as string | null);
    const allowed = plan.goalChanges.find((g) => g.field === 'allowedChecks');
    if (allowed) allowChecksInTx(tx, emit, goalId, allowed.to as string[], allowed.from as string[]);
    else if (!work.goal && spec.allowedChecks?.length) allowChecksInTx(tx, emit, goalId, spec.allowedChecks, []);
    applyWorktree(emit, goalId, spec, plan.goalChanges, work.goal);
    const review = plan.goalChanges.find((g) => g.field === 'review');
    if (review) setReviewInTx(emit, goalId, review.to as ReviewPolicy | null, review.from as ReviewPolicy | null);
    const ids = addTodos(emit, tx, goalId, spec, work);
    for (const t of plan.changed) {
      const data = todoEdits(t.changes, work, ids, t.key);
      if (Object.keys(data).length > 0) emit({ kind: 'todo.edited', goalId, todoId: t.id, data });
      for (const c of t.changes.filter((x) => x.field === 'check'))
        setTodoCheckInTx(emit, { id: t.id as string, goalId }, c.to as string | null, c.from as string | null);
    }
    if (plan.prune) {
      // Through `todo kill`'s own write: a pending gate needs a human channel (the whole apply is refused without one).
      for (const t of plan.removed) killInTx(tx, getTodoCore(tx.db, t.id), `removed from the goal file ${plan.path}`, emit);
    }
    for (const todo of Object.values(work.target.todos)) {
      todo.dependsOn = todo.dependsOn.map((d) => (d.startsWith('+') ? (ids.get(d.slice(1)) as string) : d));
    }
    const applied = encodeApplied(work.target);
    const keys = Object.fromEntries(spec.todos.map((t) => [t.key, ids.get(t.key) ?? (work.byKey.get(t.key)?.id as string)]));
    const stored = tx.db.prepare('SELECT file_applied FROM goals WHERE id = ?').get(goalId)?.file_applied;
    if (plan.relink || events > 0 || stored !== applied) {
      emit({ kind: 'goal.file_applied', goalId, todoId: null, data: { path: plan.path, keys, applied } });
    }
    return { plan, applied: true, goalId, events };
  });
}

/** The kernel guards its inputs whoever built the spec (the file parser checks the same with positions). */
function checkSpec(spec: GoalSpec): GoalSpec {
  const keys = new Set<string>();
  for (const t of spec.todos) {
    if (!KEY_PATTERN.test(t.key)) throw new InvalidInputError(`todo key ${JSON.stringify(t.key)} is not a slug (a-z, 0-9 and -)`);
    if (keys.has(t.key)) throw new InvalidInputError(`todo key ${t.key} appears twice`);
    keys.add(t.key);
  }
  if (spec.todos.length > 2000) throw new InvalidInputError(`a goal file may hold at most 2000 todos, not ${spec.todos.length}`);
  return {
    ...spec,
    title: requireText(spec.title, 'title'),
    objective: optionalText(spec.objective, 'objective'),
    scope: [...new Set(spec.scope.map(parseScope))],
    // The quota the file sets, new goal or not, within the ranges `goal create` keeps (its caps rounded as it rounds).
    quota: { ...checkQuota(spec.quota), ...checkCaps(spec.quota) },
    background: optionalText(spec.background, 'background', { max: TEXT_LIMITS.background }),
    ...(spec.check !== undefined ? { check: spec.check === null ? null : parseCheck(spec.check) } : {}),
    ...(spec.allowedChecks !== undefined ? { allowedChecks: parsePatterns(spec.allowedChecks) } : {}),
    ...(spec.worktreeSetup !== undefined ? { worktreeSetup: spec.worktreeSetup === null ? null : parseSetup(spec.worktreeSetup) } : {}),
    todos: spec.todos.map((t) => ({
      ...t,
      title: requireText(t.title, `todo ${t.key} title`),
      detail: optionalText(t.detail, `todo ${t.key} detail`),
      priority: parsePriority(t.priority),
      ...(t.check !== undefined ? { check: t.check === null ? null : parseCheck(t.check) } : {}),
      ...(t.recurrence ? { recurrence: recurrenceOf(t.recurrence, t.key) } : {}),
    })),
  };
}

/** The recurrence as the kernel records it (its time zone fixed now: the file's, else this machine's). */
function recurrenceOf(input: NonNullable<GoalSpec['todos'][number]['recurrence']>, key: string) {
  const recurrence = parseRecurrence(input);
  if (!recurrence) throw new InvalidInputError(`todo ${key}: a recurrence needs every or cron`);
  const { every, at, cron, tz } = recurrence;
  return { ...(every !== undefined ? { every } : {}), ...(at !== undefined ? { at } : {}), ...(cron !== undefined ? { cron } : {}), tz };
}

/** Through the goals' own create (its rules, its event); the file's body then becomes the goal's background. */
function createGoal(emit: Tx['emit'], tx: Tx, spec: GoalSpec, work: PlanWork, startPaused: boolean): string {
  const { title, objective, scope, check } = spec;
  const goal = checkNewGoal({ title, objective, scope, ...work.target.quota, ...(check ? { check } : {}) });
  // Review asked for by the file (anyone may ask for a new goal: plan.ts).
  goal.review = work.target.review ?? null;
  const id = createGoalInTx(tx, emit, goal, startPaused);
  if (spec.background) emit({ kind: 'goal.edited', goalId: id, todoId: null, data: { background: spec.background } });
  return id;
}

/** Goal fields that change through an event of their own, not `goal.edited`. */
const OWN_EVENTS = new Set(['check', 'allowedChecks', 'worktree', 'worktreeSetup', 'review']);

/** The file's worktree keys, through the one event `goal set-worktree` and `goal create --worktree` emit. */
function applyWorktree(emit: Tx['emit'], goalId: string, spec: GoalSpec, changes: readonly FieldChange[], goal: Goal | null): void {
  if (!goal) {
    // A new goal: what the file names (`worktree: null` or a file without the keys leaves it without worktrees).
    const base = spec.worktree ?? null;
    const setup = spec.worktreeSetup ?? null;
    if (base !== null || setup !== null) setWorktreeInTx(emit, goalId, base, null, setup === null ? undefined : { to: setup, from: null });
    return;
  }
  const base = changes.find((c) => c.field === 'worktree');
  const setup = changes.find((c) => c.field === 'worktreeSetup');
  if (!base && !setup) return;
  setWorktreeInTx(
    emit,
    goalId,
    base ? (base.to as string | null) : goal.worktreeBase, // a setup change alone keeps the base
    goal.worktreeBase,
    setup ? { to: setup.to as string | null, from: setup.from as string | null } : undefined,
  );
}

function goalEdits(changes: readonly FieldChange[]): Record<string, unknown> {
  return Object.fromEntries(changes.map((c) => [c.field.replace(/^quota\./, ''), c.to]));
}

/** New todos, each after the new todos it waits for (the file may name them in any order; cycles were refused). */
function addTodos(emit: Tx['emit'], tx: Tx, goalId: string, spec: GoalSpec, work: PlanWork): Map<string, string> {
  const ids = new Map<string, string>();
  const pending = spec.todos.filter((t) => !work.byKey.has(t.key));
  const add = (key: string): string => {
    const existing = ids.get(key) ?? work.byKey.get(key)?.id;
    if (existing) return existing;
    const t = pending.find((p) => p.key === key) as GoalSpec['todos'][number];
    const dependsOn = (work.deps.get(key) ?? []).map((d) => (d.startsWith('+') ? add(d.slice(1)) : d));
    const recurrence = t.recurrence ? parseRecurrence(t.recurrence) : null;
    const fields = {
      title: t.title,
      detail: t.detail,
      priority: t.priority,
      dependsOn,
      check: t.check || null,
      recurrence,
      key,
      review: t.review === true,
    };
    const id = addTodoInTx(tx, goalId, fields, emit);
    ids.set(key, id);
    work.target.todos[key] = {
      title: t.title,
      detail: t.detail,
      priority: t.priority,
      dependsOn,
      ...(t.check !== undefined ? { check: t.check } : {}),
    };
    return id;
  };
  for (const t of pending) add(t.key);
  return ids;
}

function todoEdits(changes: readonly FieldChange[], work: PlanWork, ids: Map<string, string>, key: string) {
  const data: { title?: string; detail?: string; priority?: number; dependsOn?: string[] } = {};
  for (const c of changes) {
    if (c.field === 'title') data.title = c.to as string;
    if (c.field === 'detail') data.detail = c.to as string;
    if (c.field === 'priority') data.priority = c.to as number;
    if (c.field === 'after')
      data.dependsOn = (work.deps.get(key) ?? []).map((d) => (d.startsWith('+') ? (ids.get(d.slice(1)) as string) : d));
  }
  return data;
}

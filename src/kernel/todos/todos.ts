import type { Kernel, Tx } from '../kernel';
import type { Recurrence, Todo } from '../model';
import { GatePendingError, IllegalTransitionError, InvalidInputError, NotAllowedError, RefusedError } from '../errors';
import { formatId, optionalText, parsePriority, requireText } from '../validate';
import { KERNEL, requireHumanChannel } from '../authority';
import type { Actor } from '../events/eventTypes';
import { cancelWaitingMonitorInTx } from '../monitors/monitors';
import { type RecurrenceInput, nextOccurrence, parseRecurrence } from './recurrence';
import { iso } from '../time';
import { parseCheck, requireCheckPassed, requireHumanForCheck } from '../checks/checks';
import { emitEvidence, prepareEvidence } from '../evidence/evidence';
import { evidenceCount, listEvidence } from '../evidence/evidenceQueries';
import { prepareScope, submitInTx } from './review';
import type { ReviewScope } from '../worktrees/changeScope';
import { reviewAsked, reviewLive } from './reviewQueries';
import { TEXT_LIMITS } from '../../shared/textLimits';
import { type TodoCore, getTodo, getTodoCore, leaseLive } from './todoQueries';
import { getGoal } from '../goals/goalQueries';
import { nextNum } from '../model';
import { pendingGateIds } from '../gates/gateQueries';
import { isHuman, requireLiveLease } from './claims';
// Which statuses block, unblock and kill start from: the transition table the team store's trigger is generated from.
import { mayStartFrom } from './todoTransitions';

export interface TodoInput {
  goalId: string;
  title: string;
  detail?: string;
  priority?: number;
  dependsOn?: string[];
  /** The todo's own acceptance check (human only); without one, the goal's applies. */
  check?: string;
  /** Makes it recurring: each occurrence that ships or is killed is followed by the next, due at its time. */
  recurrence?: RecurrenceInput;
  /** Its change is reviewed before it is done, whatever its goal's setting (anyone adding it may ask). */
  review?: boolean;
}

export function addTodo(kernel: Kernel, input: TodoInput): Todo {
  kernel.requireActor();
  const title = requireText(input.title, 'title');
  const detail = optionalText(input.detail, 'detail');
  const priority = parsePriority(input.priority);
  const dependsOn = [...new Set(input.dependsOn ?? [])];
  if (dependsOn.length > 100) throw new InvalidInputError('a todo may depend on at most 100 others');
  const check = parseCheck(input.check);
  if (check !== null) requireHumanForCheck(kernel, 'adding a todo with a check');
  const recurrence = parseRecurrence(input.recurrence ?? {});
  return kernel.write((tx) => {
    const goal = getGoal(tx.db, input.goalId);
    if (goal.status === 'done' || goal.status === 'stopped') {
      throw new IllegalTransitionError(`goal ${goal.id} is ${goal.status}; resume it before adding todos`);
    }
    for (const dep of dependsOn) getTodoCore(tx.db, dep); // unknown dependency → not found
    const id = addTodoInTx(tx, goal.id, { title, detail, priority, dependsOn, check, recurrence, review: input.review === true });
    return getTodo(tx.db, id);
  });
}

/** A todo's fields once checked: by `addTodo`, or by a goal file's plan (which adds its key). */
export interface NewTodo {
  title: string;
  detail: string;
  priority: number;
  dependsOn: string[];
  check: string | null;
  recurrence: Recurrence | null;
  /** The goal file's key for it. */
  key?: string;
  /** Asks for review of its change whatever the goal's setting. */
  review?: boolean;
}

/**
 * The one write path of `todo.added` for a new todo (`todo add`, and goal files, which pass their counting `emit`):
 * its id, and a recurring todo's first occurrence. Returns the id. The next occurrence of a series is added by
 * `scheduleNextOccurrence`, through the same builder.
 */
export function addTodoInTx(tx: Tx, goalId: string, todo: NewTodo, emit: Tx['emit'] = (draft, as) => tx.emit(draft, as)): string {
  const { title, detail, priority, dependsOn, check, recurrence, key, review } = todo;
  const readyAt = recurrence ? nextOccurrence(recurrence, null, tx.nowMs) : null;
  const series = recurrence ? { recurrence, readyAt: readyAt === null ? null : iso(readyAt) } : undefined;
  return emitTodoAdded(tx, emit, goalId, { title, detail, priority, dependsOn, check, key, series, review });
}

/** What a `todo.added` says beyond its id: a new todo's fields, or a series' next occurrence's. */
interface TodoAddedFields {
  title: string;
  detail: string;
  priority: number;
  dependsOn: string[];
  check: string | null;
  key?: string;
  series?: { recurrence: Recurrence; readyAt: string | null; previous?: string };
  review?: boolean;
}

/** The one place a `todo.added` is built and a todo's id numbered. Returns the id. */
function emitTodoAdded(tx: Tx, emit: Tx['emit'], goalId: string, todo: TodoAddedFields, as?: Actor): string {
  const num = nextNum(tx.db, 'todos');
  const id = formatId('todo', num);
  const { title, detail, priority, dependsOn, check, key, series, review } = todo;
  emit(
    {
      kind: 'todo.added',
      goalId,
      todoId: id,
      data: {
        id,
        num,
        title,
        detail,
        priority,
        dependsOn,
        ...(key !== undefined ? { key } : {}),
        ...(check !== null ? { check } : {}),
        ...(series ?? {}),
        ...(review ? { review: true } : {}),
      },
    },
    as,
  );
  return id;
}

export function blockTodo(kernel: Kernel, todoId: string, reasonText: string): Todo {
  kernel.requireActor();
  const reason = requireText(reasonText, 'reason', { max: TEXT_LIMITS.reason, multiline: true });
  return kernel.write((tx) => {
    const todo = getTodoCore(tx.db, todoId);
    if (!mayStartFrom('todo.blocked', todo.status)) {
      throw new IllegalTransitionError(`todo ${todoId} is ${todo.status}; it cannot be blocked`);
    }
    // Humans may block anything not finished; an agent blocks only what it holds.
    if (!isHuman(tx)) requireLiveLease(tx, todo);
    tx.emit({ kind: 'todo.blocked', goalId: todo.goalId, todoId, data: { reason, previousOwner: todo.owner } });
    return getTodo(tx.db, todoId);
  });
}

/** Blocked needs a human: only a human (through VS Code or a terminal) unblocks, never the agent that blocked. */
export function unblockTodo(kernel: Kernel, todoId: string, noteText?: string): Todo {
  requireHumanChannel(kernel.requireActor(), `to unblock todo ${todoId}`);
  const note = optionalText(noteText, 'note') || null;
  return kernel.write((tx) => {
    const todo = getTodoCore(tx.db, todoId);
    if (!mayStartFrom('todo.unblocked', todo.status)) throw new IllegalTransitionError(`todo ${todoId} is ${todo.status}, not blocked`);
    tx.emit({ kind: 'todo.unblocked', goalId: todo.goalId, todoId, data: { note } });
    return getTodo(tx.db, todoId);
  });
}

/**
 * Inside a ship or a kill: a recurring todo's next occurrence is added (by the kernel), due at its next time.
 * Not when the goal is done or stopped, or when the series is ended on purpose.
 */
export function scheduleNextOccurrence(tx: Tx, todoId: string): void {
  const todo = getTodo(tx.db, todoId);
  if (!todo.recurrence) return;
  const goal = getGoal(tx.db, todo.goalId);
  if (goal.status === 'done' || goal.status === 'stopped') return;
  if (tx.db.prepare('SELECT 1 FROM todos WHERE previous_id = ?').get(todoId)) return;
  const previous = Date.parse(todo.readyAt ?? todo.createdAt);
  const next = nextOccurrence(todo.recurrence, previous, tx.nowMs);
  if (next === null) return;
  const series = { recurrence: todo.recurrence, readyAt: iso(next), previous: todo.id };
  // The next occurrence asks for review as this one did.
  const { title, detail, priority, check, review } = todo;
  emitTodoAdded(
    tx,
    (draft, as) => tx.emit(draft, as),
    todo.goalId,
    { title, detail, priority, dependsOn: [], check, series, review },
    KERNEL,
  );
}

export interface ShipInput {
  evidence?: string;
  artifacts?: string[];
  leaseToken?: string;
  /** What the implementer checked, for its reviewer (a goal with review); the evidence's summary when absent. */
  validation?: string;
}

/**
 * Ships a todo the caller holds. Refused with a gate pending, without a passing kernel run of its acceptance check
 * (when a human set one) since the claim, or without evidence (recorded earlier or given here). When the todo's goal
 * asks for review, an agent's ship submits the change for review instead (review.ts): the todo waits `in_review`.
 */
export function shipTodo(kernel: Kernel, todoId: string, input: ShipInput = {}): Todo {
  const actor = kernel.requireActor();
  const artifacts = input.artifacts ?? [];
  const summary = input.evidence ?? (artifacts.length > 0 ? `Shipped with ${artifacts.length} artifact(s)` : undefined);
  const validation = optionalText(input.validation, 'validation', { max: TEXT_LIMITS.summary });
  const prepared = summary === undefined ? null : prepareEvidence(kernel.root, { summary, artifacts, kind: 'ship' });
  const attempt = (scope: ReviewScope | null) =>
    kernel.write((tx): Todo | typeof NEEDS_SCOPE => {
      const todo = getTodoCore(tx.db, todoId);
      requireLiveLease(tx, todo, input.leaseToken);
      const gates = pendingGateIds(tx.db, todoId);
      if (gates.length > 0) throw new GatePendingError(`shipping todo ${todoId}`, gates);
      requireCheckPassed(tx, todoId);
      if (!prepared && evidenceCount(tx.db, todoId) === 0) {
        throw new RefusedError(
          'evidence_required',
          `todo ${todoId} has no evidence; shipping needs some`,
          `add it: loopx todo ship ${todoId} --evidence "what was done and how it was checked" [--artifact PATH]`,
        );
      }
      // A person's ship is their own decision; an agent's goes to its reviewer when the goal asks for one. git never runs
      // under the write lock: nothing written yet, the scope is read from git after this write and the ship written again.
      const reviewed = actor.kind !== 'human' && reviewAsked(tx.db, todoId);
      if (reviewed && scope === null) return NEEDS_SCOPE;
      if (prepared) emitEvidence(tx, { goalId: todo.goalId, todoId }, prepared);
      if (reviewed && scope) {
        submitInTx(tx, todo, scope, validation || summary || (listEvidence(tx.db, { todoId, limit: 1 })[0]?.summary ?? ''));
        return getTodo(tx.db, todoId);
      }
      tx.emit({ kind: 'todo.shipped', goalId: todo.goalId, todoId, data: { previousOwner: todo.owner as string } });
      scheduleNextOccurrence(tx, todoId);
      return getTodo(tx.db, todoId);
    });
  const first = attempt(null);
  return first === NEEDS_SCOPE ? (attempt(prepareScope(kernel, todoId)) as Todo) : first;
}

/** A ship on a goal with review found no scope read yet: shipTodo reads it from git and writes the ship again. */
const NEEDS_SCOPE = Symbol('the scope of the change is needed');

export function killTodo(kernel: Kernel, todoId: string, reasonText: string, options: { endSeries?: boolean } = {}): Todo {
  kernel.requireActor();
  const reason = requireText(reasonText, 'reason', { max: TEXT_LIMITS.reason, multiline: true });
  return kernel.write((tx) => {
    const todo = getTodoCore(tx.db, todoId);
    if (!mayStartFrom('todo.killed', todo.status)) throw new IllegalTransitionError(`todo ${todoId} is already ${todo.status}`);
    if (!isHuman(tx) && (leaseLive(todo, tx.at) || reviewLive(todo, tx.at)) && todo.owner !== tx.actor.name) {
      throw new NotAllowedError(`todo ${todoId} is claimed by ${todo.owner}; an agent may not kill another's claim`);
    }
    killInTx(tx, todo, reason);
    if (!options.endSeries) scheduleNextOccurrence(tx, todoId);
    return getTodo(tx.db, todoId);
  });
}

/**
 * The one write path of `todo.killed` (`todo kill`, and a goal file's `--prune`, which passes its counting `emit`):
 * the pending gates it cancels need a person through a human channel, or an agent escapes its gate; a monitor waiting
 * on the todo is cancelled with it. Who may kill whose claim is the caller's rule.
 */
export function killInTx(tx: Tx, todo: TodoCore, reason: string, emit: Tx['emit'] = (draft, as) => tx.emit(draft, as)): void {
  const cancelledGates = pendingGateIds(tx.db, todo.id);
  if (cancelledGates.length > 0)
    requireHumanChannel(tx.actor, `to kill todo ${todo.id}, which has pending gate ${cancelledGates.join(', ')}`);
  cancelWaitingMonitorInTx(tx, todo.id, `todo killed: ${reason}`);
  emit({ kind: 'todo.killed', goalId: todo.goalId, todoId: todo.id, data: { reason, previousOwner: todo.owner, cancelledGates } });
}

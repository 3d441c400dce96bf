import type { Kernel, Tx } from '../kernel';
import type { Todo } from '../model';
import { IllegalTransitionError, InvalidInputError, NotAllowedError } from '../errors';
import { formatId, optionalText, parsePriority, requireText } from '../validate';
import { getGoal, getTodo, getTodoCore, leaseLive, nextNum, pendingGateIds } from '../queries/lookups';
import { isHuman, requireLiveLease } from './leases';
import { requireHumanChannel } from '../authority';
import { KERNEL, cancelWaitingMonitorInTx } from './monitors';
import { type RecurrenceInput, nextOccurrence, parseRecurrence } from '../recurrence';
import { iso } from '../time';
import { parseCheck, requireHumanForCheck } from './checks';
import { TEXT_LIMITS } from '../../shared/textLimits';

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
    const num = nextNum(tx.db, 'todos');
    const id = formatId('todo', num);
    const readyAt = recurrence ? nextOccurrence(recurrence, null, tx.nowMs) : null;
    const recurring = recurrence ? { recurrence, readyAt: readyAt === null ? null : iso(readyAt) } : {};
    tx.emit({
      kind: 'todo.added',
      goalId: goal.id,
      todoId: id,
      data: { id, num, title, detail, priority, dependsOn, ...(check !== null ? { check } : {}), ...recurring },
    });
    return getTodo(tx.db, id);
  });
}

const TERMINAL = new Set(['shipped', 'killed']);

export function blockTodo(kernel: Kernel, todoId: string, reasonText: string): Todo {
  kernel.requireActor();
  const reason = requireText(reasonText, 'reason', { max: TEXT_LIMITS.reason, multiline: true });
  return kernel.write((tx) => {
    const todo = getTodoCore(tx.db, todoId);
    if (TERMINAL.has(todo.status) || todo.status === 'blocked') {
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
    if (todo.status !== 'blocked') throw new IllegalTransitionError(`todo ${todoId} is ${todo.status}, not blocked`);
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
  const num = nextNum(tx.db, 'todos');
  const id = formatId('todo', num);
  tx.emit(
    {
      kind: 'todo.added',
      goalId: todo.goalId,
      todoId: id,
      data: {
        id,
        num,
        title: todo.title,
        detail: todo.detail,
        priority: todo.priority,
        dependsOn: [],
        ...(todo.check !== null ? { check: todo.check } : {}),
        recurrence: todo.recurrence,
        readyAt: iso(next),
        previous: todo.id,
      },
    },
    KERNEL,
  );
}

export function killTodo(kernel: Kernel, todoId: string, reasonText: string, options: { endSeries?: boolean } = {}): Todo {
  kernel.requireActor();
  const reason = requireText(reasonText, 'reason', { max: TEXT_LIMITS.reason, multiline: true });
  return kernel.write((tx) => {
    const todo = getTodoCore(tx.db, todoId);
    if (TERMINAL.has(todo.status)) throw new IllegalTransitionError(`todo ${todoId} is already ${todo.status}`);
    if (!isHuman(tx) && leaseLive(todo, tx.at) && todo.owner !== tx.actor.name) {
      throw new NotAllowedError(`todo ${todoId} is claimed by ${todo.owner}; an agent may not kill another's claim`);
    }
    const cancelledGates = pendingGateIds(tx.db, todoId);
    // Killing cancels the pending gates: deciding them that way is a human's call, or an agent escapes its gate.
    if (cancelledGates.length > 0)
      requireHumanChannel(tx.actor, `to kill todo ${todoId}, which has pending gate ${cancelledGates.join(', ')}`);
    cancelWaitingMonitorInTx(tx, todoId, `todo killed: ${reason}`);
    tx.emit({ kind: 'todo.killed', goalId: todo.goalId, todoId, data: { reason, previousOwner: todo.owner, cancelledGates } });
    if (!options.endSeries) scheduleNextOccurrence(tx, todoId);
    return getTodo(tx.db, todoId);
  });
}

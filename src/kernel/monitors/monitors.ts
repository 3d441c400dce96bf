import type { Kernel, Tx } from '../kernel';
import { IllegalTransitionError, InvalidInputError, NotAllowedError } from '../errors';
import { type Monitor, describeMonitor, getMonitor, waitingMonitor } from './monitorQueries';
import { formatDuration, iso } from '../time';
import { formatId, optionalText, requireText } from '../validate';
import { hasHumanChannel, requireHumanChannel } from '../authority';
import { matchingPattern, parsePatterns } from './checkPatterns';
import type { Goal } from '../model';
import { TEXT_LIMITS } from '../../shared/textLimits';
import { getTodoCore } from '../todos/todoQueries';
import { isTerminalStatus, nextNum } from '../model';
import { isHuman, releaseInTx, requireLiveLease } from '../todos/claims';
import { getGoal } from '../goals/goalQueries';
import { lastRunLine, noteLine } from './continuations';

export const MONITOR_DEFAULTS = { everySeconds: 300, timeoutSeconds: 24 * 3600, runLimitSeconds: 60 } as const;
const LIMITS = {
  every: [10, 7 * 86400],
  timeout: [10, 90 * 86400],
  runLimit: [1, 3600],
  after: [1, 366 * 86400],
} as const;
export interface MonitorInput {
  todoId: string;
  /** The check: a shell command run from the workspace root. */
  check?: string;
  everySeconds?: number;
  /** exit0 (default), change, or match:REGEX. */
  until?: string;
  /** A pure timer: fires this many seconds from now. */
  afterSeconds?: number;
  timeoutSeconds?: number;
  runLimitSeconds?: number;
  note?: string;
}

function within(value: number | undefined, field: string, [min, max]: readonly [number, number], fallback: number | null): number | null {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InvalidInputError(`${field} must be from ${formatDuration(min)} to ${formatDuration(max)}`);
  }
  return value;
}

export type Condition = { kind: 'exit0' } | { kind: 'change' } | { kind: 'match'; regex: RegExp };

/** exit0 | change | match:REGEX (a JavaScript regular expression, multiline: ^ and $ match at line ends). */
export function parseCondition(text: string | undefined): Condition {
  const value = (text ?? 'exit0').trim();
  if (value === 'exit0') return { kind: 'exit0' };
  if (value === 'change') return { kind: 'change' };
  if (value.startsWith('match:')) {
    const source = value.slice('match:'.length);
    if (source.length === 0) throw new InvalidInputError('match: needs a regular expression, e.g. match:deployed|ready');
    if (source.length > 500) throw new InvalidInputError('the match: expression is longer than 500 characters');
    try {
      return { kind: 'match', regex: new RegExp(source, 'm') };
    } catch (error) {
      throw new InvalidInputError(`match:${source} is not a valid regular expression: ${(error as Error).message}`);
    }
  }
  throw new InvalidInputError(`--until must be exit0, change or match:REGEX, got ${JSON.stringify(value)}`);
}

/**
 * Puts a todo to wait on a monitor: a check the kernel runs every so often until a condition holds, or a pure
 * timer. The agent holding the todo (or a human) asks; the claim is released with a continuation naming the monitor,
 * and the todo is neither ready nor claimable until the monitor fires, expires or is cancelled.
 */
export function addMonitor(kernel: Kernel, input: MonitorInput): Monitor {
  kernel.requireActor();
  const timer = input.afterSeconds !== undefined;
  if (timer === (input.check !== undefined))
    throw new InvalidInputError('a monitor has either --check CMD or --after DURATION (a pure timer)');
  const note = optionalText(input.note, 'note', { max: TEXT_LIMITS.monitorNote });
  let spec: {
    kind: 'check' | 'timer';
    command: string | null;
    everySeconds: number | null;
    until: string;
    runLimitSeconds: number | null;
    timeoutSeconds: number | null;
    afterSeconds: number | null;
  };
  if (timer) {
    if (input.everySeconds !== undefined || input.until !== undefined || input.runLimitSeconds !== undefined) {
      throw new InvalidInputError('a timer (--after) takes no --every, --until or --run-limit: it runs nothing and fires at its time');
    }
    // A timer has no timeout unless one is given (then it expires instead of firing if that comes first).
    spec = {
      kind: 'timer',
      command: null,
      everySeconds: null,
      until: 'time',
      runLimitSeconds: null,
      timeoutSeconds: within(input.timeoutSeconds, '--timeout', LIMITS.timeout, null),
      afterSeconds: within(input.afterSeconds, '--after', LIMITS.after, null),
    };
  } else {
    const command = requireText(input.check, 'check', { max: TEXT_LIMITS.check });
    const until = requireText(input.until ?? 'exit0', '--until', { max: TEXT_LIMITS.until });
    parseCondition(until);
    spec = {
      kind: 'check',
      command,
      everySeconds: within(input.everySeconds, '--every', LIMITS.every, MONITOR_DEFAULTS.everySeconds),
      until,
      runLimitSeconds: within(input.runLimitSeconds, '--run-limit', LIMITS.runLimit, MONITOR_DEFAULTS.runLimitSeconds),
      timeoutSeconds: within(input.timeoutSeconds, '--timeout', LIMITS.timeout, MONITOR_DEFAULTS.timeoutSeconds),
      afterSeconds: null,
    };
  }
  return kernel.write((tx) => {
    const todo = getTodoCore(tx.db, input.todoId);
    if (isTerminalStatus(todo.status)) {
      throw new IllegalTransitionError(`todo ${todo.id} is ${todo.status}; there is nothing left to wait for`);
    }
    if (todo.status === 'blocked') throw new IllegalTransitionError(`todo ${todo.id} is blocked; unblock it before it waits on a monitor`);
    const goal = tx.db.prepare('SELECT status FROM goals WHERE id = ?').get(todo.goalId);
    if (goal?.status === 'done' || goal?.status === 'stopped')
      throw new IllegalTransitionError(`goal ${todo.goalId} is ${String(goal.status)}`);
    const existing = waitingMonitor(tx.db, todo.id);
    if (existing) {
      throw new IllegalTransitionError(
        `todo ${todo.id} already waits on monitor ${existing.id}`,
        `cancel it first: loopx monitor cancel ${existing.id}`,
      );
    }
    // An agent puts only the todo it holds to wait; a human may put any open or claimed todo to wait.
    if (!isHuman(tx)) requireLiveLease(tx, todo);
    const num = nextNum(tx.db, 'monitors');
    const id = formatId('monitor', num);
    const approval = approvalFor(tx, todo.goalId, spec.command);
    const nextCheckAt = spec.afterSeconds !== null ? iso(tx.nowMs + spec.afterSeconds * 1000) : tx.at; // a check runs at the next tick
    const expiresAt = spec.timeoutSeconds !== null ? iso(tx.nowMs + spec.timeoutSeconds * 1000) : null;
    const data = {
      id,
      num,
      kind: spec.kind,
      command: spec.command,
      everySeconds: spec.everySeconds,
      until: spec.until,
      runLimitSeconds: spec.runLimitSeconds,
      expiresAt,
      nextCheckAt,
      note,
      ...approval,
    };
    tx.emit({ kind: 'monitor.added', goalId: todo.goalId, todoId: todo.id, data });
    if (todo.status === 'claimed') {
      const waits = `Waiting on monitor ${id}: ${describeMonitor({ ...data, check: data.command })}${expiresAt ? `, expires ${expiresAt}` : ''}.`;
      releaseInTx(tx, todo, note ? `${note}\n${waits}` : waits);
    }
    return getMonitor(tx.db, id);
  });
}

/**
 * Who lets a new monitor's check run. loopx runs a check later, unattended and outside the agent's sandbox, so a
 * check an agent sets carries no more authority than the agent had: it runs when it matches a pattern a person
 * allowed for the goal, else it waits for a person to approve it. A person's own check (VS Code, or a terminal)
 * runs as given; a "person" without a channel (a script, or an agent that unset LOOPX_AGENT) waits like an agent.
 */
function approvalFor(
  tx: Tx,
  goalId: string,
  command: string | null,
): { approval: 'person' | 'pattern' | 'pending'; pattern: string | null } {
  if (command === null || hasHumanChannel(tx.actor)) return { approval: 'person', pattern: null };
  const pattern = matchingPattern(getGoal(tx.db, goalId).allowedChecks, command);
  return pattern ? { approval: 'pattern', pattern } : { approval: 'pending', pattern: null };
}

/** A person lets an agent's waiting check run (VS Code shows the command; a terminal asks for the monitor id). */
export function approveMonitor(kernel: Kernel, monitorId: string): Monitor {
  requireHumanChannel(kernel.requireActor(), `approving the check of monitor ${monitorId}`);
  return kernel.write((tx) => {
    const monitor = getMonitor(tx.db, monitorId);
    if (monitor.status !== 'waiting') throw new IllegalTransitionError(`monitor ${monitor.id} is ${monitor.status}, not waiting`);
    if (monitor.approval !== 'pending') throw new IllegalTransitionError(`monitor ${monitor.id}'s check does not wait for a person`);
    tx.emit({
      kind: 'monitor.approved',
      goalId: monitor.goalId,
      todoId: monitor.todoId,
      data: { id: monitor.id, command: monitor.check as string, pattern: null },
    });
    return getMonitor(tx.db, monitor.id);
  });
}

/**
 * Sets the patterns of checks agents may set for a goal's monitors without asking (a person's decision, through a
 * human channel). Waiting checks an agent set that a new pattern covers are let run in the same transaction.
 */
export function allowChecks(kernel: Kernel, goalId: string, values: readonly string[]): Goal {
  const actor = kernel.requireActor();
  requireHumanChannel(actor, `allowing checks for goal ${goalId}`, {
    message: "which checks agents may set is a person's decision",
    hint: 'a person allows them in VS Code or a terminal',
  });
  const patterns = parsePatterns(values);
  return kernel.write((tx) => {
    const goal = getGoal(tx.db, goalId);
    if (JSON.stringify(goal.allowedChecks) !== JSON.stringify(patterns)) allowChecksInTx(tx, tx.emit, goalId, patterns, goal.allowedChecks);
    return getGoal(tx.db, goalId);
  });
}

/** Inside a transaction (allow-checks, a goal file's apply): the new patterns, and the waiting checks they now cover. */
export function allowChecksInTx(tx: Tx, emit: Tx['emit'], goalId: string, patterns: string[], from: string[]): void {
  emit({ kind: 'goal.checks_allowed', goalId, todoId: null, data: { patterns, from } });
  for (const row of tx.db
    .prepare(`SELECT id FROM monitors WHERE goal_id = ? AND status = 'waiting' AND approval = 'pending' ORDER BY num`)
    .all(goalId)) {
    const monitor = getMonitor(tx.db, String(row.id));
    const pattern = matchingPattern(patterns, monitor.check ?? '');
    if (pattern)
      emit({
        kind: 'monitor.approved',
        goalId,
        todoId: monitor.todoId,
        data: { id: monitor.id, command: monitor.check as string, pattern },
      });
  }
}

/** Stops a waiting monitor: a human, or the agent that added it. The todo is ready again. */
export function cancelMonitor(kernel: Kernel, monitorId: string, reasonText?: string): Monitor {
  const actor = kernel.requireActor();
  const reason = optionalText(reasonText, 'reason', { max: TEXT_LIMITS.reason });
  return kernel.write((tx) => {
    const monitor = getMonitor(tx.db, monitorId);
    if (monitor.status !== 'waiting') throw new IllegalTransitionError(`monitor ${monitor.id} is ${monitor.status}, not waiting`);
    if (actor.kind === 'agent' && monitor.addedBy !== actor.name) {
      throw new NotAllowedError(`monitor ${monitor.id} was added by ${monitor.addedBy}; only they or a human may cancel it`);
    }
    const result = `cancelled by ${actor.name}${reason ? `: ${reason}` : ''}`;
    const continuation = `Monitor ${monitor.id} (${describeMonitor(monitor)}) was ${result} before it fired.${lastRunLine(monitor)}${noteLine(monitor)}`;
    tx.emit({ kind: 'monitor.cancelled', goalId: monitor.goalId, todoId: monitor.todoId, data: { id: monitor.id, result, continuation } });
    return getMonitor(tx.db, monitor.id);
  });
}

/** Inside another operation's transaction (a kill): the todo's waiting monitor stops with it. */
export function cancelWaitingMonitorInTx(tx: Tx, todoId: string, why: string): void {
  const monitor = waitingMonitor(tx.db, todoId);
  if (!monitor) return;
  tx.emit({ kind: 'monitor.cancelled', goalId: monitor.goalId, todoId, data: { id: monitor.id, result: why, continuation: null } });
}

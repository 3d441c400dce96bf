import type { Kernel, Tx } from '../kernel';
import type { SqliteDb } from '../db/sqliteDb';
import { IllegalTransitionError, InvalidInputError, NotAllowedError, RefusedError } from '../errors';
import { requireCheckStanding } from './checkStanding';
import { randomToken } from '../nodeCrypto';
import { type Monitor, describeMonitor, getMonitor, waitingMonitor } from './monitorQueries';
import { formatDuration, iso } from '../time';
import { formatId, optionalText, requireText } from '../validate';
import { KERNEL, hasHumanChannel, requireHumanChannel } from '../authority';
import { matchingPattern, parsePatterns } from './checkPatterns';
import type { Goal } from '../model';
import { type CommandResult, recordedRun } from '../run/runCommand';
import { TEXT_LIMITS } from '../../shared/textLimits';
import { runTook } from '../../shared/timeWords';
import { getTodoCore } from '../todos/todoQueries';
import { isTerminalStatus, nextNum } from '../model';
import { isHuman, releaseInTx, requireLiveLease } from '../todos/claims';
import { getGoal } from '../goals/goalQueries';
import { type ClaimHolder, checksOfDeadTickers, thisTicker } from './claimHolders';

export const MONITOR_DEFAULTS = { everySeconds: 300, timeoutSeconds: 24 * 3600, runLimitSeconds: 60 } as const;
const LIMITS = {
  every: [10, 7 * 86400],
  timeout: [10, 90 * 86400],
  runLimit: [1, 3600],
  after: [1, 366 * 86400],
} as const;
/** A claimed run lapses this long after its time limit (a ticker that died mid-run is replaced). */
const RUN_CLAIM_GRACE_SECONDS = 30;

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

function noteLine(m: Monitor): string {
  return m.note ? `\nNote left when it was added: ${m.note}` : '';
}

function lastRunLine(m: Monitor): string {
  const run = m.lastRun;
  if (!run) return '';
  const outcome = run.error ?? `exited ${run.exitCode}`;
  return `\nLast run (${run.n}, ${run.at}): ${outcome} after ${runTook(run.durationMs)}.${run.outputTail.trim() ? `\nOutput (end):\n${tailForContinuation(run.outputTail)}` : ''}`;
}

/** The continuation keeps the last lines of output, not all 2,000 characters. */
function tailForContinuation(tail: string): string {
  const trimmed = tail.trimEnd();
  return trimmed.length > 1200 ? `…${trimmed.slice(-1200)}` : trimmed;
}

// ---- ticking: the pieces `monitor tick` runs; each is one transaction ----

/** Anything a tick could do now, read without taking the write lock (the common answer is no). */
export function anythingDue(db: SqliteDb, nowMs: number): boolean {
  const at = iso(nowMs);
  return (
    db
      .prepare(
        `SELECT 1 FROM monitors m JOIN goals g ON g.id = m.goal_id
          WHERE m.status = 'waiting' AND g.status = 'active'
            AND ((m.next_check_at <= ? AND m.approval <> 'pending') OR m.expires_at <= ?) LIMIT 1`,
      )
      .get(at, at) !== undefined || checksOfDeadTickers(db, at).length > 0
  );
}

/**
 * Fires the timers whose time has come and expires the monitors past their timeout (not while a run is in progress:
 * its result decides). Monitors of goals that are not active wait with their goal.
 */
export function settleDue(kernel: Kernel): { fired: string[]; expired: string[] } {
  return kernel.write((tx) => {
    const fired: string[] = [];
    const expired: string[] = [];
    const due = tx.db
      .prepare(
        `SELECT m.id FROM monitors m JOIN goals g ON g.id = m.goal_id
          WHERE m.status = 'waiting' AND g.status = 'active'
            AND ((m.kind = 'timer' AND m.next_check_at <= ?) OR (m.expires_at <= ? AND (m.running_until IS NULL OR m.running_until <= ?)))
          ORDER BY m.num`,
      )
      .all(tx.at, tx.at, tx.at);
    for (const row of due) {
      const monitor = getMonitor(tx.db, String(row.id));
      const expiresFirst =
        monitor.expiresAt !== null && monitor.expiresAt <= tx.at && monitor.expiresAt < (monitor.nextCheckAt ?? monitor.expiresAt);
      if (monitor.kind === 'timer' && !expiresFirst) {
        const result = `its timer ran out at ${monitor.nextCheckAt}`;
        const continuation = `Monitor ${monitor.id} fired: ${result}.${noteLine(monitor)}`;
        tx.emit(
          {
            kind: 'monitor.fired',
            goalId: monitor.goalId,
            todoId: monitor.todoId,
            data: { id: monitor.id, reason: 'time', run: null, result, continuation },
          },
          KERNEL,
        );
        fired.push(monitor.id);
      } else {
        expireInTx(tx, monitor);
        expired.push(monitor.id);
      }
    }
    return { fired, expired };
  });
}

function expireInTx(tx: Tx, monitor: Monitor): void {
  const result = `expired at ${monitor.expiresAt} after ${monitor.runCount} run${monitor.runCount === 1 ? '' : 's'} without ${monitor.until} holding`;
  const continuation = `Monitor ${monitor.id} (${describeMonitor(monitor)}) ${result}: the condition never held; decide what to do next.${lastRunLine(monitor)}${noteLine(monitor)}`;
  tx.emit(
    { kind: 'monitor.expired', goalId: monitor.goalId, todoId: monitor.todoId, data: { id: monitor.id, result, continuation } },
    KERNEL,
  );
}

export interface RunClaim {
  monitor: Monitor;
  n: number;
  token: string;
}

/**
 * Takes the most overdue check that is due, not running and not in `skip` (checks this tick already ran), in one
 * transaction: the claim names a token and lapses after the run's time limit plus a grace period, so two tickers
 * never run the same check, and a ticker that died mid-run does not hold it forever. The claim names its holder (this
 * process): a ticker on the same machine takes over at once the run of a holder that is gone (claimHolders.ts).
 */
/** A due check loopx will not run: the person's decision it stands on does not (checkStanding.ts). Nothing recorded. */
export interface RunRefusal {
  refused: Monitor;
  error: RefusedError;
}

export function claimDueRun(kernel: Kernel, skip: ReadonlySet<string>, holder: ClaimHolder = thisTicker()): RunClaim | RunRefusal | null {
  return kernel.write((tx) => {
    const candidates = tx.db
      .prepare(
        `SELECT m.id FROM monitors m JOIN goals g ON g.id = m.goal_id
          WHERE m.status = 'waiting' AND m.kind = 'check' AND m.approval <> 'pending' AND g.status = 'active' AND m.next_check_at <= ?
            AND (m.running_until IS NULL OR m.running_until <= ?) AND (m.expires_at IS NULL OR m.expires_at > ?)
          ORDER BY m.next_check_at, m.num LIMIT ?`,
      )
      .all(tx.at, tx.at, tx.at, skip.size + 1);
    // A run whose ticker died is taken over first: it was due when that ticker claimed it, and never ran to its end.
    const ids = [...checksOfDeadTickers(tx.db, tx.at), ...candidates.map((r) => String(r.id))];
    const id = ids.find((c) => !skip.has(c));
    if (!id) return null;
    const monitor = getMonitor(tx.db, id);
    try {
      requireCheckStanding(tx.db, monitor);
    } catch (error) {
      if (error instanceof RefusedError) return { refused: monitor, error };
      throw error;
    }
    const n = monitor.runCount + 1;
    const token = randomToken();
    const limit = monitor.runLimitSeconds ?? MONITOR_DEFAULTS.runLimitSeconds;
    const until = iso(tx.nowMs + (limit + RUN_CLAIM_GRACE_SECONDS) * 1000);
    const nextCheckAt = iso(tx.nowMs + (monitor.everySeconds ?? MONITOR_DEFAULTS.everySeconds) * 1000);
    tx.emit(
      { kind: 'monitor.run_claimed', goalId: monitor.goalId, todoId: monitor.todoId, data: { id, n, token, until, nextCheckAt, holder } },
      KERNEL,
    );
    return { monitor: getMonitor(tx.db, id), n, token };
  });
}

export type RunOutcome = 'fired' | 'waiting' | 'expired' | 'superseded';

/**
 * Records a run and decides: the condition holds → the monitor fires and the todo is ready with the result in its
 * continuation; past the timeout → it expires; else it waits for the next run. A run whose claim was lost (the
 * monitor was cancelled, or its claim lapsed and another ticker took it) is dropped.
 */
export function recordRun(kernel: Kernel, claim: RunClaim, startedAt: string, result: CommandResult): RunOutcome {
  return kernel.write((tx) => {
    const current = tx.db.prepare('SELECT status, running_token FROM monitors WHERE id = ?').get(claim.monitor.id);
    if (current?.status !== 'waiting' || current.running_token !== claim.token) return 'superseded';
    const m = claim.monitor;
    const data = {
      id: m.id,
      n: claim.n,
      token: claim.token,
      startedAt,
      ...recordedRun(result),
    };
    tx.emit({ kind: 'monitor.checked', goalId: m.goalId, todoId: m.todoId, data }, KERNEL);
    const monitor = getMonitor(tx.db, m.id);
    const holds = conditionHolds(tx, monitor, claim.n, result);
    if (holds) {
      const outcome = result.exitCode === null ? (result.error ?? 'ended') : `exited ${result.exitCode}`;
      const what = `\`${monitor.check}\` ${outcome} after ${runTook(result.durationMs)} (run ${claim.n}, ${startedAt})`;
      const resultText = `${holds}: ${what}`;
      const tail = result.outputTail.trim() ? `\nOutput (end):\n${tailForContinuation(result.outputTail)}` : '';
      const continuation = `Monitor ${monitor.id} fired (${resultText}).${tail}${noteLine(monitor)}`;
      tx.emit(
        {
          kind: 'monitor.fired',
          goalId: m.goalId,
          todoId: m.todoId,
          data: { id: m.id, reason: monitor.until, run: claim.n, result: resultText, continuation },
        },
        KERNEL,
      );
      return 'fired';
    }
    if (monitor.expiresAt !== null && monitor.expiresAt <= tx.at) {
      expireInTx(tx, monitor);
      return 'expired';
    }
    return 'waiting';
  });
}

/** Why the condition holds, in words, or null. A run that could not run or was killed never satisfies it. */
function conditionHolds(tx: Tx, monitor: Monitor, n: number, result: CommandResult): string | null {
  if (result.error !== null || result.exitCode === null) return null;
  const condition = parseCondition(monitor.until);
  switch (condition.kind) {
    case 'exit0':
      return result.exitCode === 0 ? 'the check passed' : null;
    case 'match': {
      const found = condition.regex.exec(result.matchText);
      return found ? `the output matched ${monitor.until.slice('match:'.length)} ("${found[0].slice(0, 80)}")` : null;
    }
    case 'change': {
      // The first completed run is the baseline; the monitor fires at the first one that differs from it.
      const before = tx.db
        .prepare(
          `SELECT exit_code, output_sha256 FROM monitor_runs WHERE monitor_id = ? AND n < ? AND error IS NULL ORDER BY n DESC LIMIT 1`,
        )
        .get(monitor.id, n);
      if (!before) return null;
      if (before.output_sha256 !== result.outputSha256) return 'the output changed';
      if (Number(before.exit_code) !== result.exitCode)
        return `the exit code changed from ${String(before.exit_code)} to ${result.exitCode}`;
      return null;
    }
  }
}

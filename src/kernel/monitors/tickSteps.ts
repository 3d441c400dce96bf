import type { Kernel, Tx } from '../kernel';
import type { SqliteDb } from '../db/sqliteDb';
import { RefusedError } from '../errors';
import { KERNEL } from '../authority';
import { randomToken } from '../nodeCrypto';
import { iso } from '../time';
import { type CommandResult, recordedRun } from '../run/runCommand';
import { runTook } from '../../shared/timeWords';
import { requireCheckStanding } from './checkStanding';
import { type ClaimHolder, checksOfDeadTickers, thisTicker } from './claimHolders';
import { lastRunLine, noteLine, tailForContinuation } from './continuations';
import { type Monitor, describeMonitor, getMonitor } from './monitorQueries';
import { MONITOR_DEFAULTS, parseCondition } from './monitors';
import { limitSql } from '../db/limitSql';

/**
 * The pieces `monitor tick` runs (tick.ts), each one transaction: fire the timers and expire the monitors whose time
 * has come, claim a due check, record its run and decide. Adding, allowing and cancelling a monitor are monitors.ts.
 */

/** A claimed run lapses this long after its time limit (a ticker that died mid-run is replaced). */
const RUN_CLAIM_GRACE_SECONDS = 30;

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
          ORDER BY m.next_check_at, m.num ${limitSql(skip.size + 1)}`,
      )
      .all(tx.at, tx.at, tx.at);
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

import { VALIDATED_RESULTS_SQL, isValidatedResult } from './turnQueries';
import type { Row, SqliteDb } from '../db/sqliteDb';
import { iso } from '../time';
import type { ResultKind } from './turnQueries';
import { promptCacheMinTokens, promptCacheWindows } from '../promptCache';
import { limitSql } from '../db/limitSql';

/**
 * After a turn that made no validated progress, its todo is not taken again by a turn start for a while, so a
 * crashing or confused agent does not burn turn after turn on it. Only that todo waits: the goal's other ready work
 * runs meanwhile. The wait doubles with each failure in a row, from BACKOFF_BASE_SECONDS up to BACKOFF_MAX_SECONDS,
 * and ends early when something changes about the todo (a person's note or decision, a monitor firing, an agent's
 * write). It never stops a todo for good: a person is told (status, STATUS.md, the board) once it has failed
 * FAILING_AFTER times in a row.
 */
export const BACKOFF_BASE_SECONDS = 60;
export const BACKOFF_MAX_SECONDS = 3600;
export const FAILING_AFTER = 3;

/** Events about a todo that are not a change worth a new try: routine monitor runs, lease renewals. */
const ROUTINE = `('monitor.run_claimed', 'monitor.checked', 'todo.renewed')`;
/** How many turns back a streak of failures is counted (the wait is at its longest long before). */
const STREAK_LOOKBACK = 16;

export interface Retry {
  todoId: string;
  goalId: string;
  /** The todo's latest turn, which made no progress. */
  turnId: string;
  result: ResultKind;
  exitCode: number | null;
  endedAt: string;
  /** Turns in a row on this todo that failed (crashed, timed out, wrote nothing back, or gave it back without a word). */
  failures: number;
  /** When a turn start may take it again. */
  retryAt: string;
  /** The wait was shortened to end inside the host's prompt-cache window (cacheAwareRetry). */
  keepsCacheWarm: boolean;
  /** Something changed about the todo since that turn ended: it may be taken at once. */
  changed: boolean;
}

/**
 * A failure is a turn that ended without validated progress and without handing the todo to something definite:
 * a gate, a block or a monitor each wait on something that ends by itself or with a person, and are not failures.
 */
/** Result kinds that may be failures (a `wait` is one unless the todo was handed to a monitor). */
const FAILURE_KINDS = new Set(['host_failure', 'validation_failed', 'wait']);

function isFailure(db: SqliteDb, todoId: string, row: Row): boolean {
  if (row.result_kind === 'host_failure' || row.result_kind === 'validation_failed') return true;
  if (row.result_kind !== 'wait') return false;
  const handedToMonitor = db
    .prepare(`SELECT 1 FROM events WHERE todo_id = ? AND kind = 'monitor.added' AND seq > ? AND seq < ? LIMIT 1`)
    .get(todoId, Number(row.start_seq), Number(row.end_seq));
  return handedToMonitor === undefined;
}

function failureStreak(db: SqliteDb, todoId: string): number {
  const rows = db
    .prepare(
      `SELECT result_kind, start_seq, end_seq FROM turns WHERE todo_id = ? AND ended_at IS NOT NULL ORDER BY num DESC ${limitSql(STREAK_LOOKBACK)}`,
    )
    .all(todoId);
  let n = 0;
  for (const row of rows) {
    if (!isFailure(db, todoId, row)) break;
    n++;
  }
  return n;
}

/** How long a todo waits after `failures` failures in a row (a turn that was no failure: the shortest wait). */
export function backoffSeconds(failures: number): number {
  return Math.min(BACKOFF_MAX_SECONDS, BACKOFF_BASE_SECONDS * 2 ** Math.max(0, failures - 1));
}

/**
 * Cache-aware waking (issue 44): a retry a little after the host's prompt cache lets go of the turn's prompt pays to
 * read, and write, the whole prefix again; a little before, it reads most of it at a tenth of the price. So a wait
 * that would end just after the window ends instead inside it, `cacheMargin` before its end (a host takes a few
 * seconds to send its first request). Just after means the window ends past half the wait: a wait is never cut by more
 * than half, so a todo that keeps failing still waits longer each time. A wait that outlasts the window by more
 * (or ends inside it anyway) is left as it is: waking early then buys nothing. `windowSeconds` null: no known cache.
 * Returns when the todo may be taken again (ms) and whether that was brought forward.
 */
export function cacheAwareRetry(
  endedMs: number,
  waitSeconds: number,
  windowSeconds: number | null,
): { at: number; keepsCacheWarm: boolean } {
  const plain = endedMs + waitSeconds * 1000;
  if (windowSeconds === null || windowSeconds <= 0) return { at: plain, keepsCacheWarm: false };
  const inside = endedMs + (windowSeconds - cacheMargin(windowSeconds)) * 1000;
  if (plain <= inside || inside < endedMs + (waitSeconds * 1000) / 2) return { at: plain, keepsCacheWarm: false };
  return { at: inside, keepsCacheWarm: true };
}

/** How long before the window's end a retry starts: a tenth of the window, at most a minute. */
export function cacheMargin(windowSeconds: number): number {
  return Math.min(60, windowSeconds / 10);
}

/**
 * The window that counts for a turn's retry: its host's, when the turn read a prompt its provider caches (a turn
 * whose usage is unknown, or too small to cache, has nothing warm to keep).
 */
function warmWindow(host: string, inputTokens: unknown, windows: (host: string) => number | null): number | null {
  if (typeof inputTokens !== 'number' && typeof inputTokens !== 'bigint') return null;
  if (Number(inputTokens) < promptCacheMinTokens(host)) return null;
  return windows(host);
}

/**
 * When a todo whose last turn (`host`, its `input_tokens`) ended at `endedAt` after `failures` failures may run again;
 * `windows` from promptCacheWindows, one per call that times retries.
 */
function retryOf(
  endedAt: string,
  failures: number,
  last: Row,
  windows: (host: string) => number | null,
): { at: number; keepsCacheWarm: boolean } {
  return cacheAwareRetry(Date.parse(endedAt), backoffSeconds(failures), warmWindow(String(last.host), last.input_tokens, windows));
}

/** One todo's wait now: the time a turn start may take it again, or null when it may be taken at once. */
export function retryAt(db: SqliteDb, todoId: string, nowMs: number): string | null {
  const last = db
    .prepare('SELECT result_kind, ended_at, end_seq, host, input_tokens FROM turns WHERE todo_id = ? ORDER BY num DESC LIMIT 1')
    .get(todoId);
  if (!last || last.ended_at === null) return null;
  if (isValidatedResult(last.result_kind)) return null;
  const ended = Date.parse(String(last.ended_at));
  if (ended <= nowMs - BACKOFF_MAX_SECONDS * 1000) return null;
  if (changedSince(db, todoId, Number(last.end_seq))) return null;
  const { at } = retryOf(String(last.ended_at), failureStreak(db, todoId), last, promptCacheWindows());
  return at > nowMs ? iso(at) : null;
}

function changedSince(db: SqliteDb, todoId: string, seq: number): boolean {
  return db.prepare(`SELECT 1 FROM events WHERE todo_id = ? AND seq > ? AND kind NOT IN ${ROUTINE} LIMIT 1`).get(todoId, seq) !== undefined;
}

/**
 * Open todos whose latest turn made no validated progress and ended within the last `withinSeconds` (no turn open on
 * them now), with their wait. should-run reads the last hour (no wait is longer); status reads a day, to tell a
 * person about todos that keep failing.
 */
export function recentRetries(
  db: SqliteDb,
  nowMs: number,
  options: { goalId?: string; withinSeconds?: number; minFailures?: number } = {},
): Retry[] {
  const since = iso(nowMs - (options.withinSeconds ?? BACKOFF_MAX_SECONDS) * 1000);
  const rows = db
    .prepare(
      // The unary pluses keep SQLite from walking every open todo (todos_ready) or every turn (in num order): it
      // walks only the turns that ended in the window (turns_open, turns_goal_ended), which do not grow with the store.
      `SELECT t.id, t.goal_id, t.todo_id, t.result_kind, t.exit_code, t.ended_at, t.start_seq, t.end_seq, t.host, t.input_tokens FROM turns t
         JOIN todos d ON d.id = t.todo_id AND +d.status = 'open'
        WHERE t.ended_at > ? ${options.goalId ? 'AND t.goal_id = ?' : ''}
          AND t.result_kind NOT IN (${VALIDATED_RESULTS_SQL})
          AND t.num = (SELECT max(u.num) FROM turns u WHERE u.todo_id = t.todo_id)
        ORDER BY +t.num`,
    )
    .all(...(options.goalId ? [since, options.goalId] : [since]));
  const min = options.minFailures ?? 0;
  const lastKinds = db.prepare(`SELECT result_kind FROM turns WHERE todo_id = ? ORDER BY num DESC ${limitSql(Math.max(1, min))}`);
  const windows = promptCacheWindows();
  const retries: Retry[] = [];
  for (const r of rows) {
    const todoId = String(r.todo_id);
    // Only streaks that can be long enough are counted (status asks for todos that keep failing).
    if (min > 0 && !lastKinds.all(todoId).every((k) => FAILURE_KINDS.has(String(k.result_kind)))) continue;
    const failures = failureStreak(db, todoId);
    if (failures < min) continue;
    const endedAt = String(r.ended_at);
    const changed = changedSince(db, todoId, Number(r.end_seq));
    const retry = retryOf(endedAt, failures, r, windows);
    retries.push({
      todoId,
      goalId: String(r.goal_id),
      turnId: String(r.id),
      result: r.result_kind as ResultKind,
      exitCode: r.exit_code === null ? null : Number(r.exit_code),
      endedAt,
      failures,
      retryAt: iso(retry.at),
      keepsCacheWarm: retry.keepsCacheWarm,
      changed,
    });
  }
  return retries;
}

/** The todos of a goal a turn start leaves alone now, each with its retry (the time it may be taken again). */
export function backingOff(db: SqliteDb, goalId: string, nowMs: number): Map<string, Retry> {
  const at = iso(nowMs);
  return new Map(
    recentRetries(db, nowMs, { goalId })
      .filter((r) => !r.changed && r.retryAt > at)
      .map((r) => [r.todoId, r]),
  );
}

import type { Kernel } from '../kernel';
import type { Row, SqliteDb } from '../db/sqliteDb';
import { IllegalTransitionError, InvalidInputError, NotFoundError } from '../errors';
import { requireHumanChannel } from '../authority';
import { rowReader } from '../rowReader';
import { formatDuration } from '../time';
import { formatId, optionalText, requireText } from '../validate';
import { HOOK_TRIGGERS, type HookTrigger } from './hookEventSchemas';
import { TEXT_LIMITS } from '../../shared/textLimits';
import { getGoal } from '../goals/goalQueries';
import { nextNum } from '../model';
import { limitSql } from '../db/limitSql';

/** A hook's command runs this long at most unless the person says otherwise; then its process group is killed. */
export const HOOK_TIMEOUT = { default: 30, min: 1, max: 600 } as const;

export interface Hook {
  id: string;
  command: string;
  on: HookTrigger[];
  /** Only this goal's events; null: every goal's. */
  goalId: string | null;
  timeoutSeconds: number;
  note: string;
  status: 'active' | 'removed';
  addedBy: string;
  addedChannel: string | null;
  createdAt: string;
  /** The event that added it: it runs only for later events. */
  sinceSeq: number;
}

export interface HookRun {
  hookId: string;
  seq: number;
  trigger: HookTrigger;
  claimedBy: string;
  claimedAt: string;
  endedAt: string | null;
  exitCode: number | null;
  durationMs: number | null;
  outputTail: string;
  timedOut: boolean;
  error: string | null;
}

export interface HookInput {
  command: string;
  on: readonly string[];
  goalId?: string;
  timeoutSeconds?: number;
  note?: string;
}

function hookFromRow(row: Row): Hook {
  const r = rowReader('hooks', row);
  return {
    id: r.text('id'),
    command: r.text('command'),
    on: r.stringList('triggers').filter((t): t is HookTrigger => (HOOK_TRIGGERS as readonly string[]).includes(t)),
    goalId: r.maybeText('goal_id'),
    timeoutSeconds: r.int('timeout_seconds'),
    note: r.text('note'),
    status: r.oneOf('status', ['active', 'removed'] as const),
    addedBy: r.text('added_by'),
    addedChannel: r.maybeText('added_channel'),
    createdAt: r.text('created_at'),
    sinceSeq: r.int('since_seq'),
  };
}

function runFromRow(row: Row): HookRun {
  const r = rowReader('hook_runs', row);
  return {
    hookId: r.text('hook_id'),
    seq: r.int('event_seq'),
    trigger: r.oneOf('trigger', HOOK_TRIGGERS),
    claimedBy: r.text('claimed_by'),
    claimedAt: r.text('claimed_at'),
    endedAt: r.maybeText('ended_at'),
    exitCode: r.maybeInt('exit_code'),
    durationMs: r.maybeInt('duration_ms'),
    outputTail: r.maybeText('output_tail') ?? '',
    timedOut: r.maybeInt('timed_out') === 1,
    error: r.maybeText('error'),
  };
}

export function getHook(db: SqliteDb, id: string): Hook {
  const row = db.prepare('SELECT * FROM hooks WHERE id = ?').get(id);
  if (!row) throw new NotFoundError('hook', id);
  return hookFromRow(row);
}

/** Active hooks first, in the order they were added; then removed ones (with `all`). */
export function listHooks(db: SqliteDb, options: { all?: boolean } = {}): Hook[] {
  const sql = options.all
    ? `SELECT * FROM hooks ORDER BY status = 'removed', num`
    : `SELECT * FROM hooks WHERE status = 'active' ORDER BY num`;
  return db.prepare(sql).all().map(hookFromRow);
}

/** The latest runs (of one hook, or of all), newest first. */
export function hookRuns(db: SqliteDb, options: { hookId?: string; limit?: number } = {}): HookRun[] {
  const limit = limitSql(options.limit ?? 20);
  const rows = options.hookId
    ? db.prepare(`SELECT * FROM hook_runs WHERE hook_id = ? ORDER BY claimed_at DESC, event_seq DESC ${limit}`).all(options.hookId)
    : db.prepare(`SELECT * FROM hook_runs ORDER BY claimed_at DESC, event_seq DESC ${limit}`).all();
  return rows.map(runFromRow);
}

export function parseTriggers(values: readonly string[]): HookTrigger[] {
  if (values.length === 0) throw new InvalidInputError(`say when the hook runs: --on ${HOOK_TRIGGERS.join('|')} (repeatable), or --on all`);
  const out = new Set<HookTrigger>();
  for (const raw of values) {
    for (const value of raw.split(',').map((v) => v.trim())) {
      if (value === 'all') HOOK_TRIGGERS.forEach((t) => out.add(t));
      else if ((HOOK_TRIGGERS as readonly string[]).includes(value)) out.add(value as HookTrigger);
      else throw new InvalidInputError(`unknown hook event ${JSON.stringify(value)}; one of ${HOOK_TRIGGERS.join(', ')}, or all`);
    }
  }
  return HOOK_TRIGGERS.filter((t) => out.has(t));
}

/**
 * Adds a hook: a command of a person's choosing that loopx runs, unattended and outside any agent's sandbox, when
 * something happens a person must hear about. So it is a person's decision only, through a human channel (VS Code,
 * or a terminal where the new id is typed), like an acceptance check: no agent, MCP tool or script can set one.
 */
export function addHook(kernel: Kernel, input: HookInput): Hook {
  requireHumanChannel(kernel.requireActor(), 'adding a hook');
  const command = requireText(input.command, 'command', { max: TEXT_LIMITS.check });
  const on = parseTriggers(input.on);
  const timeoutSeconds = input.timeoutSeconds ?? HOOK_TIMEOUT.default;
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < HOOK_TIMEOUT.min || timeoutSeconds > HOOK_TIMEOUT.max)
    throw new InvalidInputError(`--timeout must be from ${formatDuration(HOOK_TIMEOUT.min)} to ${formatDuration(HOOK_TIMEOUT.max)}`);
  const note = optionalText(input.note, 'note', { max: TEXT_LIMITS.short, multiline: false });
  return kernel.write((tx) => {
    const goal = input.goalId ? getGoal(tx.db, input.goalId).id : null;
    const num = nextNum(tx.db, 'hooks');
    const id = formatId('hook', num);
    tx.emit({ kind: 'hook.added', goalId: null, todoId: null, data: { id, num, command, on, goal, timeoutSeconds, note } });
    return getHook(tx.db, id);
  });
}

/** The id the next hook gets (a terminal asks the person to type it before adding). */
export function nextHookId(db: SqliteDb): string {
  return formatId('hook', nextNum(db, 'hooks'));
}

/** Removes a hook (a person's decision, as adding one): it runs for no later event. */
export function removeHook(kernel: Kernel, id: string): Hook {
  requireHumanChannel(kernel.requireActor(), `removing hook ${id}`);
  return kernel.write((tx) => {
    const hook = getHook(tx.db, id);
    if (hook.status !== 'active') throw new IllegalTransitionError(`hook ${id} was already removed`);
    tx.emit({ kind: 'hook.removed', goalId: null, todoId: null, data: { id } });
    return getHook(tx.db, id);
  });
}

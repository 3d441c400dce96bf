import type { Row, SqliteDb } from '../db/sqliteDb';
import { revealHidden } from '../../shared/hiddenChars';
import { iso } from '../time';
import type { HookTrigger } from './hookEventSchemas';
import { limitSql } from '../db/limitSql';

/** The event kinds that can mean something a person must hear about (turn.finished and quota.spent only sometimes). */
export const CANDIDATE_KINDS = [
  'gate.asked',
  'todo.blocked',
  'monitor.fired',
  'monitor.expired',
  'turn.finished',
  'quota.spent',
  'runner.stopped',
] as const;

/** One event a hook may run for: the facts it is told (as environment variables and JSON on stdin). */
export interface HookOccasion {
  trigger: HookTrigger;
  seq: number;
  at: string;
  kind: string;
  actor: string;
  actorKind: string;
  goalId: string | null;
  todoId: string | null;
  data: Record<string, unknown>;
  /** What it is about: a gate, todo, monitor, turn or goal id, or the runner's name. */
  subject: string;
  /** One line a notification can show as its title ("LoopX: a gate waits for you"). */
  title: string;
  /** One sentence saying what happened. */
  summary: string;
  goal: { id: string; title: string } | null;
  todo: { id: string; title: string } | null;
}

const FAILED_TURNS = new Set(['host_failure', 'validation_failed']);

function line(text: unknown, max = 300): string {
  const s = revealHidden(typeof text === 'string' ? text : '')
    .replace(/\s+/g, ' ')
    .trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** The events after `afterSeq` that may call for a hook, oldest first. */
export function candidateRows(db: SqliteDb, afterSeq: number, limit = 500): Row[] {
  return db
    .prepare(
      `SELECT seq, at, kind, actor, actor_kind, goal_id, todo_id, data FROM events
        WHERE seq > ? AND kind IN (${CANDIDATE_KINDS.map(() => '?').join(', ')}) ORDER BY seq ${limitSql(limit)}`,
    )
    .all(afterSeq, ...CANDIDATE_KINDS);
}

/**
 * Whether an event is one a person must hear about, and what to tell them; null when it is not (a turn that made
 * progress, a spend that left budget). Read against the store as it is now: titles of the goal and todo, and for
 * a spend whether the goal's window was full at that moment.
 */
export function occasionOf(db: SqliteDb, row: Row): HookOccasion | null {
  const kind = String(row.kind);
  const data = JSON.parse(String(row.data)) as Record<string, unknown>;
  const goalId = (row.goal_id as string | null) ?? null;
  const todoId = (row.todo_id as string | null) ?? null;
  const goal = goalId ? goalFacts(db, goalId) : null;
  const todo = todoId ? todoFacts(db, todoId) : null;
  const base = {
    seq: Number(row.seq),
    at: String(row.at),
    kind,
    actor: String(row.actor),
    actorKind: String(row.actor_kind),
    goalId,
    todoId,
    data,
    goal: goal ? { id: goal.id, title: goal.title } : null,
    todo,
  };
  const about = todo ? `${todo.id} ${line(todo.title, 80)}` : goal ? `goal ${goal.id} ${line(goal.title, 80)}` : '';
  switch (kind) {
    case 'gate.asked':
      return {
        ...base,
        trigger: 'gate.asked',
        subject: String(data.id),
        title: 'LoopX: a gate waits for you',
        summary: `${base.actor} asks (gate ${String(data.id)} on ${about}): ${line(data.question)}`,
      };
    case 'todo.blocked':
      return {
        ...base,
        trigger: 'todo.blocked',
        subject: todoId ?? '',
        title: `LoopX: ${todoId} is blocked`,
        summary: `${base.actor} blocked ${about}: ${line(data.reason)}`,
      };
    case 'monitor.fired':
    case 'monitor.expired': {
      const fired = kind === 'monitor.fired';
      return {
        ...base,
        trigger: fired ? 'monitor.fired' : 'monitor.expired',
        subject: String(data.id),
        title: `LoopX: monitor ${String(data.id)} ${fired ? 'fired' : 'expired'}`,
        summary: `${about} is ready again: ${line(data.result)}`,
      };
    }
    case 'turn.finished': {
      const result = String(data.resultKind);
      if (!FAILED_TURNS.has(result)) return null;
      const turn = String(data.id);
      const why = result === 'host_failure' ? `the agent's command failed (exit ${String(data.exitCode)})` : 'the agent wrote nothing back';
      return {
        ...base,
        trigger: 'turn.failed',
        subject: turn,
        title: `LoopX: turn ${turn} failed`,
        summary: `Turn ${turn}${todo ? ` on ${about}` : ''} by ${base.actor} failed: ${why}.`,
      };
    }
    case 'quota.spent': {
      if (!goal) return null;
      const windowStart = iso(Date.parse(base.at) - goal.windowHours * 3600_000);
      const spent = Number(
        db.prepare('SELECT count(*) AS n FROM quota_spends WHERE goal_id = ? AND at > ? AND at <= ?').get(goal.id, windowStart, base.at)
          ?.n ?? 0,
      );
      if (spent < goal.turnsPerWindow) return null;
      return {
        ...base,
        trigger: 'budget.spent',
        subject: goal.id,
        title: `LoopX: ${goal.id}'s budget is spent`,
        summary: `Goal ${goal.id} ${line(goal.title, 80)} spent ${spent} of ${goal.turnsPerWindow} turns in ${goal.windowHours} h; no turn runs until a slot frees.`,
      };
    }
    case 'runner.stopped':
      return {
        ...base,
        trigger: 'runner.stopped',
        subject: base.actor,
        title: 'LoopX: a runner stopped',
        summary: `loopx run (${base.actor} on ${line(data.host)}) stopped (${line(data.reason)}) after ${String(data.turns)} turn${data.turns === 1 ? '' : 's'}.`,
      };
    default:
      return null;
  }
}

function goalFacts(db: SqliteDb, id: string): { id: string; title: string; turnsPerWindow: number; windowHours: number } | null {
  const row = db.prepare('SELECT id, title, turns_per_window, window_hours FROM goals WHERE id = ?').get(id);
  return row ? { id, title: String(row.title), turnsPerWindow: Number(row.turns_per_window), windowHours: Number(row.window_hours) } : null;
}

function todoFacts(db: SqliteDb, id: string): { id: string; title: string } | null {
  const row = db.prepare('SELECT title FROM todos WHERE id = ?').get(id);
  return row ? { id, title: String(row.title) } : null;
}

/** Whether a hook is for this occasion: its events, its goal (a runner stopping concerns every goal), and after it was added. */
export function hookWants(hook: { on: HookTrigger[]; goalId: string | null; sinceSeq: number }, o: HookOccasion): boolean {
  if (o.seq <= hook.sinceSeq || !hook.on.includes(o.trigger)) return false;
  if (hook.goalId === null || o.trigger === 'runner.stopped') return true;
  return o.goalId === hook.goalId;
}

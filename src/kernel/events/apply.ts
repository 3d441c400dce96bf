import type { SqliteDb } from '../db/sqliteDb';
import type { EventKind, StoredEvent } from './eventTypes';
import { canonicalJson } from './canonical';
import { hookReducers } from '../hooks/hookReducers';
import { worktreeReducers } from '../worktrees/worktreeReducers';

type Reducer<K extends EventKind> = (db: SqliteDb, e: Extract<StoredEvent, { kind: K }>) => void;
type Reducers = { [K in EventKind]: Reducer<K> };

/** Touches a todo row: every todo change bumps its revision and stamps the event time. */
function touchTodo(db: SqliteDb, todoId: string | null, at: string, assignments: string, params: (string | number | null)[]): void {
  const result = db
    .prepare(`UPDATE todos SET ${assignments}, revision = revision + 1, updated_at = ? WHERE id = ?`)
    .run(...params, at, todoId);
  if (result.changes !== 1) throw new Error(`event applies to unknown todo ${todoId}`);
}

const GOAL_COLUMN: Record<string, string> = {
  title: 'title',
  objective: 'objective',
  scope: 'scope',
  turnsPerWindow: 'turns_per_window',
  windowHours: 'window_hours',
  maxConcurrent: 'max_concurrent',
  cooldownSeconds: 'cooldown_seconds',
  tokensPerWindow: 'tokens_per_window',
  dollarsPerWindow: 'dollars_per_window',
  background: 'background',
};

const CLEAR_LEASE = 'owner = NULL, lease_token = NULL, lease_expires_at = NULL';

/** A monitor stops waiting; its todo gets the outcome as its continuation (a cancel as part of a kill leaves it). */
function endMonitor(
  db: SqliteDb,
  e: StoredEvent,
  status: 'fired' | 'expired' | 'cancelled',
  id: string,
  result: string,
  continuation: string | null,
): void {
  const changed = db
    .prepare(
      `UPDATE monitors SET status = ?, ended_at = ?, ended_by = ?, result = ?, next_check_at = NULL, running_token = NULL, running_until = NULL
      WHERE id = ? AND status = 'waiting'`,
    )
    .run(status, e.at, e.actor, result, id);
  if (changed.changes !== 1) throw new Error(`event ends monitor ${id}, which is not waiting`);
  if (continuation !== null) touchTodo(db, e.todoId, e.at, 'continuation = ?', [continuation]);
}

/**
 * The only code that writes state tables. Kernel operations and replay both go through it,
 * which is what makes "replaying the log reproduces the state" true by construction.
 */
const reducers: Reducers = {
  'store.initialized': () => {},
  'log.accepted': () => {},
  'goal.created': (db, e) => {
    const d = e.data;
    db.prepare(
      `INSERT INTO goals (id, num, title, objective, scope, status, turns_per_window, window_hours, max_concurrent,
        cooldown_seconds, tokens_per_window, dollars_per_window, check_command, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      d.id,
      d.num,
      d.title,
      d.objective,
      JSON.stringify(d.scope),
      d.status ?? 'active',
      d.turnsPerWindow,
      d.windowHours,
      d.maxConcurrent,
      d.cooldownSeconds,
      d.tokensPerWindow ?? null,
      d.dollarsPerWindow ?? null,
      d.check ?? null,
      e.at,
      e.at,
    );
  },
  'goal.check_set': (db, e) => {
    db.prepare('UPDATE goals SET check_command = ?, updated_at = ? WHERE id = ?').run(e.data.check, e.at, e.goalId);
  },
  'goal.status': (db, e) => {
    db.prepare('UPDATE goals SET status = ?, updated_at = ? WHERE id = ?').run(e.data.status, e.at, e.goalId);
  },
  'todo.added': (db, e) => {
    const d = e.data;
    db.prepare(
      `INSERT INTO todos (id, num, goal_id, title, detail, priority, status, continuation, depends_on, evidence_count, revision,
        check_command, recurrence, ready_at, previous_id, created_at, updated_at, key) VALUES (?, ?, ?, ?, ?, ?, 'open', '', ?, 0, 1, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      d.id,
      d.num,
      e.goalId,
      d.title,
      d.detail,
      d.priority,
      d.dependsOn.join(','),
      d.check ?? null,
      d.recurrence ? canonicalJson(d.recurrence) : null,
      d.readyAt ?? null,
      d.previous ?? null,
      e.at,
      e.at,
      d.key ?? null,
    );
    const dep = db.prepare('INSERT INTO todo_deps (todo_id, depends_on) VALUES (?, ?)');
    for (const dependsOn of d.dependsOn) dep.run(d.id, dependsOn);
  },
  'todo.check_set': (db, e) => touchTodo(db, e.todoId, e.at, 'check_command = ?', [e.data.check]),
  'goal.edited': (db, e) => {
    const { scope, ...rest } = e.data;
    // null is a value here (a cap removed), undefined is "not changed".
    const fields: Record<string, string | number | null | undefined> = { ...rest, scope: scope && JSON.stringify(scope) };
    // Only the goal's own fields: event data also carries who decided (a human's channel).
    const sets = Object.entries(fields).filter(([k, v]) => v !== undefined && k in GOAL_COLUMN);
    if (sets.length === 0) return;
    db.prepare(`UPDATE goals SET ${sets.map(([k]) => `${GOAL_COLUMN[k]} = ?`).join(', ')}, updated_at = ? WHERE id = ?`).run(
      ...sets.map(([, v]) => v as string | number | null),
      e.at,
      e.goalId,
    );
  },
  'todo.edited': (db, e) => {
    const { title, detail, priority, dependsOn } = e.data;
    // Named, not spread: event data also carries who decided (a human's channel), which is no column.
    const fields: Record<string, string | number | undefined> = { title, detail, priority, depends_on: dependsOn?.join(',') };
    const sets = Object.entries(fields).filter(([, v]) => v !== undefined);
    touchTodo(
      db,
      e.todoId,
      e.at,
      sets.map(([k]) => `${k} = ?`).join(', ') || 'revision = revision',
      sets.map(([, v]) => v as string | number),
    );
    if (dependsOn) {
      db.prepare('DELETE FROM todo_deps WHERE todo_id = ?').run(e.todoId);
      const dep = db.prepare('INSERT INTO todo_deps (todo_id, depends_on) VALUES (?, ?)');
      for (const id of dependsOn) dep.run(e.todoId, id);
    }
  },
  'goal.file_applied': (db, e) => {
    // A path names one goal: linking it here unlinks it from any goal it named before.
    db.prepare('UPDATE goals SET file_path = NULL WHERE file_path = ? AND id <> ?').run(e.data.path, e.goalId);
    db.prepare('UPDATE goals SET file_path = ?, file_applied = ? WHERE id = ?').run(e.data.path, e.data.applied, e.goalId);
    // Keys are only ever added: a todo keeps its key when it leaves the file, so the next apply still reports it.
    const setKey = db.prepare('UPDATE todos SET key = ? WHERE id = ? AND goal_id = ?');
    for (const [key, id] of Object.entries(e.data.keys)) setKey.run(key, id, e.goalId);
  },
  'todo.claimed': (db, e) =>
    touchTodo(db, e.todoId, e.at, `status = 'claimed', owner = ?, lease_token = ?, lease_expires_at = ?, reason = NULL`, [
      e.data.owner,
      e.data.leaseToken,
      e.data.leaseExpiresAt,
    ]),
  'todo.renewed': (db, e) => touchTodo(db, e.todoId, e.at, 'lease_expires_at = ?', [e.data.leaseExpiresAt]),
  'todo.released': (db, e) =>
    touchTodo(db, e.todoId, e.at, `status = 'open', ${CLEAR_LEASE}, continuation = coalesce(?, continuation)`, [e.data.note]),
  'todo.shipped': (db, e) => touchTodo(db, e.todoId, e.at, `status = 'shipped', ${CLEAR_LEASE}`, []),
  'todo.blocked': (db, e) => touchTodo(db, e.todoId, e.at, `status = 'blocked', ${CLEAR_LEASE}, reason = ?`, [e.data.reason]),
  'todo.unblocked': (db, e) =>
    touchTodo(db, e.todoId, e.at, `status = 'open', reason = NULL, continuation = coalesce(?, continuation)`, [e.data.note]),
  'todo.killed': (db, e) => {
    touchTodo(db, e.todoId, e.at, `status = 'killed', ${CLEAR_LEASE}, reason = ?`, [e.data.reason]);
    const cancel = db.prepare(
      `UPDATE gates SET status = 'cancelled', decided_by = ?, decided_at = ?, note = ? WHERE id = ? AND status = 'pending'`,
    );
    for (const gateId of e.data.cancelledGates) cancel.run(e.actor, e.at, `todo killed: ${e.data.reason}`, gateId);
  },
  // Evidence does not change the todo's revision: it adds to the record, not to the todo's state.
  evidence: (db, e) => {
    if (e.todoId) db.prepare('UPDATE todos SET evidence_count = evidence_count + 1 WHERE id = ?').run(e.todoId);
  },
  'gate.asked': (db, e) => {
    db.prepare(
      `INSERT INTO gates (id, num, goal_id, todo_id, question, status, asked_by, asked_at) VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)`,
    ).run(e.data.id, e.data.num, e.goalId, e.todoId, e.data.question, e.actor, e.at);
  },
  'gate.decided': (db, e) => {
    db.prepare('UPDATE gates SET status = ?, decided_by = ?, decided_at = ?, note = ? WHERE id = ?').run(
      e.data.status,
      e.actor,
      e.at,
      e.data.note,
      e.data.id,
    );
  },
  'quota.spent': (db, e) => {
    db.prepare('INSERT INTO quota_spends (goal_id, turn_id, at) VALUES (?, ?, ?)').run(e.goalId, e.data.turnId, e.at);
  },
  'handoff.offered': (db, e) => {
    const d = e.data;
    const supersede = db.prepare(`UPDATE handoffs SET status = 'superseded' WHERE id = ?`);
    for (const id of d.supersedes) supersede.run(id);
    db.prepare(
      `INSERT INTO handoffs (id, num, todo_id, from_agent, to_agent, summary, done, pending, permissions, status, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'offered', ?)`,
    ).run(d.id, d.num, e.todoId, e.actor, d.to, d.summary, d.done, d.pending, JSON.stringify(d.permissions), e.at);
  },
  'handoff.accepted': (db, e) => {
    db.prepare(`UPDATE handoffs SET status = 'accepted', accepted_at = ? WHERE id = ?`).run(e.at, e.data.id);
    const handoff = db.prepare('SELECT summary, pending FROM handoffs WHERE id = ?').get(e.data.id);
    const continuation =
      `Handoff from ${e.data.from}: ${String(handoff?.summary ?? '')}` +
      (handoff?.pending ? `\nStill to do: ${String(handoff.pending)}` : '');
    touchTodo(db, e.todoId, e.at, `status = 'claimed', owner = ?, lease_token = ?, lease_expires_at = ?, reason = NULL, continuation = ?`, [
      e.actor,
      e.data.leaseToken,
      e.data.leaseExpiresAt,
      continuation,
    ]);
  },
  'monitor.added': (db, e) => {
    const d = e.data;
    // Events from before schema 7 carry no approval: an agent's check waits for a person, as the migration says.
    const approval = d.approval ?? (d.kind === 'check' && e.actorKind === 'agent' ? 'pending' : 'person');
    const approvedBy = approval === 'pattern' ? (d.pattern ?? null) : approval === 'person' ? e.actor : null;
    db.prepare(
      `INSERT INTO monitors (id, num, goal_id, todo_id, kind, command, every_seconds, until_cond, run_limit_seconds, expires_at, note,
        status, added_by, created_at, next_check_at, run_count, approval, approved_by)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'waiting', ?, ?, ?, 0, ?, ?)`,
    ).run(
      d.id,
      d.num,
      e.goalId,
      e.todoId,
      d.kind,
      d.command,
      d.everySeconds,
      d.until,
      d.runLimitSeconds,
      d.expiresAt,
      d.note,
      e.actor,
      e.at,
      d.nextCheckAt,
      approval,
      approvedBy,
    );
  },
  'monitor.approved': (db, e) => {
    const d = e.data;
    const channel = (e.data as { channel?: string }).channel ?? null;
    // Approved now: its first run is due at once.
    const changed = db
      .prepare(
        `UPDATE monitors SET approval = ?, approved_by = ?, approval_channel = ?, next_check_at = ?
          WHERE id = ? AND status = 'waiting' AND approval = 'pending'`,
      )
      .run(d.pattern === null ? 'approved' : 'pattern', d.pattern ?? e.actor, d.pattern === null ? channel : null, e.at, d.id);
    if (changed.changes !== 1) throw new Error(`event approves monitor ${d.id}, which does not wait for a person`);
  },
  'goal.checks_allowed': (db, e) => {
    db.prepare('UPDATE goals SET allowed_checks = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(e.data.patterns), e.at, e.goalId);
  },
  'monitor.run_claimed': (db, e) => {
    const d = e.data;
    db.prepare('UPDATE monitors SET running_token = ?, running_until = ?, next_check_at = ? WHERE id = ?').run(
      d.token,
      d.until,
      d.nextCheckAt,
      d.id,
    );
  },
  'monitor.checked': (db, e) => {
    const d = e.data;
    db.prepare(
      `INSERT INTO monitor_runs (monitor_id, n, at, exit_code, duration_ms, output_tail, output_sha256, timed_out, error)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(d.id, d.n, d.startedAt, d.exitCode, d.durationMs, d.outputTail, d.outputSha256, d.timedOut ? 1 : 0, d.error);
    db.prepare(
      `UPDATE monitors SET run_count = run_count + 1, last_run_at = ?, last_exit_code = ?, last_output_sha256 = ?,
        running_token = NULL, running_until = NULL WHERE id = ?`,
    ).run(d.startedAt, d.exitCode, d.outputSha256, d.id);
  },
  'monitor.fired': (db, e) => endMonitor(db, e, 'fired', e.data.id, e.data.result, e.data.continuation),
  'monitor.expired': (db, e) => endMonitor(db, e, 'expired', e.data.id, e.data.result, e.data.continuation),
  'monitor.cancelled': (db, e) => endMonitor(db, e, 'cancelled', e.data.id, e.data.result, e.data.continuation),
  // Nothing but the agent's last-seen (every event records it): doctor reads runners from these events.
  'runner.started': () => {},
  'turn.started': (db, e) => {
    const d = e.data;
    db.prepare(
      `INSERT INTO turns (id, num, goal_id, todo_id, agent, host, route, prompt_path, start_seq, started_at, deadline_at)
        VALUES (?, ?, ?, ?, ?, ?, 'ready_for_host', ?, ?, ?, ?)`,
    ).run(d.id, d.num, e.goalId, e.todoId, d.agent, d.host, d.promptPath, e.seq, e.at, d.deadlineAt ?? null);
  },
  'turn.finished': (db, e) => {
    const d = e.data;
    const u = d.usage;
    db.prepare(
      `UPDATE turns SET ended_at = ?, result_kind = ?, exit_code = ?, spent = ?, end_seq = ?, input_tokens = ?, output_tokens = ?,
        cached_tokens = ?, cost_usd = ?, cost_source = ?, usage_model = ? WHERE id = ?`,
    ).run(
      e.at,
      d.resultKind,
      d.exitCode,
      d.spent ? 1 : 0,
      e.seq,
      u?.inputTokens ?? null,
      u?.outputTokens ?? null,
      u?.cachedTokens ?? null,
      u?.costUsd ?? null,
      u?.costSource ?? null,
      u?.model ?? null,
      d.id,
    );
  },
  ...hookReducers,
  ...worktreeReducers,
};

function agentKind(actor: string, actorKind: StoredEvent['actorKind']): string {
  if (actorKind === 'human') return 'human';
  const name = actor.toLowerCase();
  if (name.startsWith('codex')) return 'codex';
  if (name.startsWith('claude')) return 'claude';
  return 'custom';
}

/** The state change of one event, without the agent bookkeeping. */
export function applyReducer(db: SqliteDb, e: StoredEvent): void {
  (reducers[e.kind] as Reducer<EventKind>)(db, e as never);
}

/** Records that an agent or human acted at `at`. Idempotent for equal (actor, at), so once per transaction is enough. */
export function touchAgent(db: SqliteDb, actor: string, actorKind: StoredEvent['actorKind'], at: string): void {
  if (actorKind === 'kernel') return;
  db.prepare(
    `INSERT INTO agents (name, kind, first_seen, last_seen) VALUES (?, ?, ?, ?)
      ON CONFLICT (name) DO UPDATE SET last_seen = excluded.last_seen`,
  ).run(actor, agentKind(actor, actorKind), at, at);
}

/** Replay applies events one by one; the live kernel batches touchAgent per transaction with the same result. */
export function applyEvent(db: SqliteDb, e: StoredEvent): void {
  applyReducer(db, e);
  touchAgent(db, e.actor, e.actorKind, e.at);
}

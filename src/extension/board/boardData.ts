import type { SqliteDb } from '../../kernel/db/sqliteDb';
import { rowReader } from '../../kernel/rowReader';
import { type Recurrence, TODO_STATUSES } from '../../kernel/model';
import { statusReport } from '../../kernel/queries/status';
import { listEvidence } from '../../kernel/queries/evidence';
import { history, listGoals, listHandoffs } from '../../kernel/queries/lists';
import { getTodo } from '../../kernel/queries/lookups';
import { eventSentence } from '../../protocol/boardText';
import type { AttentionItem, BoardPatch, BoardSnapshot, Card, CardDetail, CardMonitor } from '../../protocol/kanban';
import { type Monitor, listMonitors, monitorRuns } from '../../kernel/queries/monitors';

/** Builds the board from the store in one read: every card with the facts the board's rules need. */
export function buildSnapshot(db: SqliteDb, nowMs: number, me: string): BoardSnapshot {
  const report = statusReport(db, nowMs);
  const activeGoals = new Set(report.goals.filter((g) => g.status === 'active').map((g) => g.id));
  const unmet = new Map<string, string[]>();
  for (const row of db
    .prepare(`SELECT d.todo_id, d.depends_on FROM todo_deps d JOIN todos dt ON dt.id = d.depends_on WHERE dt.status <> 'shipped'`)
    .all()) {
    const list = unmet.get(String(row.todo_id)) ?? [];
    list.push(String(row.depends_on));
    unmet.set(String(row.todo_id), list);
  }
  const gates = new Map<string, string[]>();
  for (const gate of report.pendingGates) {
    if (gate.todoId) gates.set(gate.todoId, [...(gates.get(gate.todoId) ?? []), gate.id]);
  }
  const monitors = new Map<string, CardMonitor>(report.monitors.map((m) => [m.todoId, cardMonitor(m)]));
  const cards: Card[] = db
    .prepare('SELECT id, goal_id, title, priority, status, owner, lease_expires_at, depends_on, evidence_count, revision, recurrence, ready_at FROM todos ORDER BY num')
    .all()
    .map((row) => {
      const r = rowReader('todos', row);
      const id = r.text('id');
      const goalId = r.text('goal_id');
      const status = r.oneOf('status', TODO_STATUSES);
      const readyAt = r.maybeText('ready_at');
      return {
        id,
        goalId,
        title: r.text('title'),
        priority: r.int('priority'),
        status,
        owner: r.maybeText('owner'),
        leaseExpiresAt: r.maybeText('lease_expires_at'),
        dependsOn: r.csv('depends_on'),
        unmetDeps: unmet.get(id) ?? [],
        evidenceCount: r.int('evidence_count'),
        gates: gates.get(id) ?? [],
        goalActive: activeGoals.has(goalId),
        revision: r.int('revision'),
        monitor: status === 'open' || status === 'blocked' ? (monitors.get(id) ?? null) : null,
        recurrence: r.maybeJson<Recurrence>('recurrence')?.text ?? null,
        waitsUntil: status === 'open' && readyAt !== null && readyAt > report.at ? readyAt : null,
      };
    });
  const attention: AttentionItem[] = [
    ...report.pendingGates.map((g) => ({ kind: 'gate' as const, gateId: g.id, goalId: g.goalId, todoId: g.todoId, question: g.question, askedBy: g.askedBy, askedAt: g.askedAt })),
    ...report.blocked.map((t) => ({ kind: 'blocked' as const, todoId: t.id, title: t.title, reason: t.reason ?? '' })),
    ...report.lapsedLeases.map((t) => ({ kind: 'lapsed' as const, todoId: t.id, title: t.title, owner: t.owner ?? '?', leaseExpiresAt: t.leaseExpiresAt ?? report.at })),
    ...report.goals
      .filter((g) => g.status === 'active' && g.quota.remaining === 0)
      .map((g) => ({ kind: 'budget' as const, goalId: g.id, title: g.title, nextWakeAt: g.quota.nextSlotAt })),
    // A check that cannot run (not found, killed at its limit) will never fire by itself: a person looks at it.
    ...report.monitors
      .filter((m) => m.lastRun?.error)
      .map((m) => ({ kind: 'monitor' as const, monitorId: m.id, todoId: m.todoId, title: cards.find((c) => c.id === m.todoId)?.title ?? '', check: m.check ?? '', error: m.lastRun?.error ?? '' })),
  ];
  const agents = db.prepare(`SELECT name FROM agents ORDER BY name`).all().map((r) => String(r.name));
  const backgrounds = new Map(listGoals(db).map((g) => [g.id, g.background]));
  return {
    me,
    now: report.at,
    goals: report.goals.map((g) => ({
      id: g.id,
      title: g.title,
      status: g.status,
      spent: g.quota.spent,
      turnsPerWindow: g.quota.turnsPerWindow,
      windowHours: g.quota.windowHours,
      run: g.shouldRun.run,
      reason: g.shouldRun.reason,
      nextWakeAt: g.shouldRun.nextWakeAt,
      background: backgrounds.get(g.id) ?? '',
    })),
    cards,
    attention,
    agents,
  };
}

/** Only the cards that changed (or disappeared) travel to the webview; goals, attention and agents are small. */
export function diffSnapshots(previous: BoardSnapshot, next: BoardSnapshot): BoardPatch {
  const before = new Map(previous.cards.map((c) => [c.id, JSON.stringify(c)]));
  const upserts = next.cards.filter((c) => before.get(c.id) !== JSON.stringify(c));
  const present = new Set(next.cards.map((c) => c.id));
  const removed = previous.cards.filter((c) => !present.has(c.id)).map((c) => c.id);
  return { now: next.now, upserts, removed, goals: next.goals, attention: next.attention, agents: next.agents, ...(next.folders ? { folders: next.folders } : {}) };
}

/** A card's detail pane: acceptance, continuation, evidence with artifacts, history and handoffs. */
export function buildDetail(db: SqliteDb, card: Card): CardDetail {
  const todo = getTodo(db, card.id);
  return {
    card,
    detail: todo.detail,
    continuation: todo.continuation,
    reason: todo.reason,
    evidence: listEvidence(db, { todoId: todo.id, limit: 50 }).map((e) => ({
      seq: e.seq,
      at: e.at,
      actor: e.actor,
      kind: e.kind,
      text: eventSentence({ kind: 'evidence', actor: e.actor, actorKind: e.actorKind, data: { kind: e.kind } }).text,
      summary: e.summary,
      artifacts: e.artifacts,
      ...(e.run ? { run: { command: e.run.command, exitCode: e.run.exitCode, durationMs: e.run.durationMs, error: e.run.error, check: e.run.check !== null } } : {}),
    })),
    monitors: listMonitors(db, { todoId: todo.id, limit: 20 }).map((m) => ({
      id: m.id,
      status: m.status,
      kind: m.kind,
      check: m.check,
      until: m.until,
      everySeconds: m.everySeconds,
      nextCheckAt: m.nextCheckAt,
      result: m.result,
      runs: monitorRuns(db, m.id, 10).map((r) => ({ n: r.n, at: r.at, exitCode: r.exitCode, durationMs: r.durationMs, error: r.error, outputTail: r.outputTail })),
    })),
    // A monitor's run claims are bookkeeping; its runs and how it ended are history.
    history: history(db, { todoId: todo.id, limit: 60 })
      .filter((e) => e.kind !== 'monitor.run_claimed')
      .slice(0, 50)
      .map((e) => ({ seq: e.seq, at: e.at, actor: e.actor, kind: e.kind, ...eventSentence(e) })),
    handoffs: listHandoffs(db, todo.id).map((h) => ({ id: h.id, from: h.from, to: h.to, status: h.status, summary: h.summary, pending: h.pending })),
  };
}

export function cardMonitor(m: Monitor): CardMonitor {
  const run = m.lastRun;
  return {
    id: m.id,
    kind: m.kind,
    check: m.check,
    until: m.until,
    everySeconds: m.everySeconds,
    nextCheckAt: m.nextCheckAt,
    expiresAt: m.expiresAt,
    lastRun: run ? { n: run.n, at: run.at, exitCode: run.exitCode, durationMs: run.durationMs, error: run.error } : null,
  };
}

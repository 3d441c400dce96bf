import type { SqliteDb } from '../db/sqliteDb';
import { iso } from '../time';
import { statusReport } from './status';
import { waitingCounts } from './projectSummary';
import { setAsideEvents } from '../events/setAside';
import { listTurns, openTurns } from '../turns/turnQueries';
import { listAgents } from '../turns/runners';
import { listWorktreeRows, waitsToLand } from '../worktrees/worktreeRows';
import { newestEvent } from '../events/anchor';
import { listMonitors } from '../monitors/monitorQueries';
import { listHandoffs } from '../handoffs/handoffs';
import { listTodos } from '../todos/todoQueries';
import { listGoals } from '../goals/goalQueries';
import type { Todo } from '../model';
import {
  DASHBOARD_HANDOFFS,
  DASHBOARD_TODOS,
  DASHBOARD_TURNS,
  type AttentionItem,
  type DashboardGoal,
  type DashboardProject,
  type GoalPhase,
} from '../../shared/projectTypes';

/** The order a goal's todos are glanced at in: work under way and ready first, finished last. */
const STATUS_RANK: Record<Todo['status'], number> = { claimed: 0, in_review: 1, open: 2, blocked: 3, shipped: 4, killed: 5 };

/**
 * One readable project as the dashboard shows it, read in one snapshot (the caller's `kernel.read`): what waits on a person (oldest
 * first), goals by phase with their todos, recent turns with cost, agents with their claims, recent handoffs. Each
 * attention row carries the terminal command that decides it (without `--root`: the caller names the folder).
 */
export function dashboardView(
  db: SqliteDb,
  nowMs: number,
  project: Pick<DashboardProject, 'key' | 'name' | 'root' | 'store'>,
): DashboardProject {
  const at = iso(nowMs);
  const report = statusReport(db, nowMs);
  const todosById = new Map<string, Todo>();
  const todoTitle = (id: string) => todosById.get(id)?.title ?? id;
  const worktrees = listWorktreeRows(db);
  const branches = new Map(worktrees.map((w) => [w.todoId, w.branch]));
  const open = openTurns(db);
  const goalSince = new Map(listGoals(db).map((g) => [g.id, g.updatedAt]));
  const goals: DashboardGoal[] = report.goals.map((g) => {
    const all = listTodos(db, at, { goalId: g.id });
    for (const t of all) todosById.set(t.id, t);
    const sorted = [...all].sort((a, b) => STATUS_RANK[a.status] - STATUS_RANK[b.status]);
    return {
      id: g.id,
      title: g.title,
      status: g.status,
      phase: phaseOf(g.status, g.shouldRun.run || g.counts.claimed > 0 || open.some((t) => t.goalId === g.id), g.shouldRun.nextWakeAt),
      nextWakeAt: g.status === 'active' ? g.shouldRun.nextWakeAt : null,
      host: g.host ?? null,
      counts: g.counts,
      todos: sorted.slice(0, DASHBOARD_TODOS).map((t) => ({
        id: t.id,
        title: t.title,
        status: t.status,
        owner: t.owner,
        leaseExpiresAt: t.leaseExpiresAt,
        reason: t.reason,
        evidenceCount: t.evidenceCount,
      })),
      moreTodos: Math.max(0, sorted.length - DASHBOARD_TODOS),
    };
  });
  const attention: AttentionItem[] = [
    ...report.pendingGates.map((g) =>
      item('gate', g.id, g.goalId, g.todoId, g.question, `asked by ${g.askedBy}`, g.askedAt, `loopx gate approve ${g.id}`),
    ),
    ...worktrees
      .filter(waitsToLand)
      .map((w) =>
        item('land', w.todoId, w.goalId, w.todoId, w.todoTitle, `branch ${w.branch}`, w.createdAt, `loopx worktree merge ${w.todoId}`),
      ),
    ...report.blocked.map((t) => item('blocked', t.id, t.goalId, t.id, t.title, t.reason, t.updatedAt, `loopx todo unblock ${t.id}`)),
    ...listMonitors(db, { status: 'waiting' })
      .filter((m) => m.approval === 'pending')
      .map((m) =>
        item(
          'check',
          m.id,
          m.goalId,
          m.todoId,
          m.check ?? '',
          `a check ${m.addedBy} set, to run unattended`,
          m.createdAt,
          `loopx monitor approve ${m.id}`,
        ),
      ),
    ...setAsideEvents(db)
      .filter((e) => !e.handled)
      .map((e) =>
        item(
          'setAside',
          String(e.seq),
          null,
          null,
          `event ${e.seq} (${e.kind}) set aside`,
          e.why,
          at,
          `loopx log handled ${e.seq} --decision "…"`,
        ),
      ),
    ...report.goals
      .filter((g) => g.waitsForPerson)
      .map((g) =>
        item('paused', g.id, g.id, null, g.title, 'waits for a person to start it', goalSince.get(g.id) ?? at, `loopx goal resume ${g.id}`),
      ),
    ...report.failing.map((f) =>
      item(
        'failing',
        f.todoId,
        f.goalId,
        f.todoId,
        f.title,
        `${f.failures} turns in a row made no progress`,
        f.endedAt,
        `loopx todo show ${f.todoId}`,
      ),
    ),
    ...report.lapsedLeases.map((t) =>
      item(
        'lapsed',
        t.id,
        t.goalId,
        t.id,
        t.title,
        `${t.owner ?? 'its agent'}'s lease lapsed`,
        t.leaseExpiresAt ?? t.updatedAt,
        `loopx todo show ${t.id}`,
      ),
    ),
    ...report.heldOpen.map((t) =>
      item(
        'heldOpen',
        t.id,
        t.goalId,
        t.todoId,
        `turn ${t.id} by ${t.agent}`,
        'left open: it keeps a unit of budget',
        t.startedAt,
        `loopx turn finish ${t.id} --exit-code 1`,
      ),
    ),
  ].sort((a, b) => a.since.localeCompare(b.since));
  const turns = listTurns(db, { limit: DASHBOARD_TURNS }).turns.map((t) => ({
    id: t.id,
    goalId: t.goalId,
    todoId: t.todoId,
    agent: t.agent,
    host: t.host,
    startedAt: t.startedAt,
    endedAt: t.endedAt,
    result: t.resultKind,
    costUsd: t.usage?.costUsd ?? null,
    tokens: t.usage ? t.usage.inputTokens + t.usage.outputTokens : null,
    evidence: t.todoId ? (todosById.get(t.todoId)?.evidenceCount ?? 0) : 0,
    branch: t.todoId ? (branches.get(t.todoId) ?? null) : null,
  }));
  const agents = listAgents(db)
    .filter((a) => a.kind !== 'human')
    .map((a) => ({
      name: a.name,
      kind: a.kind,
      lastSeen: a.lastSeen,
      claims: a.holding.map((id) => ({ todoId: id, title: todoTitle(id), leaseExpiresAt: todosById.get(id)?.leaseExpiresAt ?? null })),
    }));
  const handoffs = listHandoffs(db)
    .slice(-DASHBOARD_HANDOFFS)
    .reverse()
    .map((h) => ({ id: h.id, todoId: h.todoId, from: h.from, to: h.to, summary: h.summary, status: h.status, at: h.createdAt }));
  const head = newestEvent(db);
  const waiting = waitingCounts(report, {
    setAside: attention.filter((a) => a.kind === 'setAside').length,
    toLand: attention.filter((a) => a.kind === 'land').length,
  });
  return {
    ...project,
    state: 'ok',
    problem: null,
    seq: head?.seq ?? 0,
    lastActivity: head?.at ?? null,
    waiting,
    attention,
    goals,
    turns,
    agents,
    handoffs,
  };
}

function phaseOf(status: string, runs: boolean, nextWakeAt: string | null): GoalPhase {
  if (status === 'done') return 'done';
  if (status === 'stopped') return 'stopped';
  if (status !== 'active') return 'waiting';
  if (runs) return 'running';
  return nextWakeAt ? 'scheduled' : 'waiting';
}

function item(
  kind: AttentionItem['kind'],
  id: string,
  goalId: string | null,
  todoId: string | null,
  title: string,
  detail: string | null,
  since: string,
  command: string,
): AttentionItem {
  return { kind, id, goalId, todoId, title, detail, since, command, link: null };
}

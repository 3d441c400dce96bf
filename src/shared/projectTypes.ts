/**
 * A person's projects as plain data, one shape for every side: the kernel builds it from each project's store
 * (kernel/readModels/projectSummary.ts, dashboardView.ts), the CLI, VS Code and the dashboard server pass it on, the
 * dashboard's page reads only this. Every text in it came from a store and is shown as text, never parsed as HTML.
 */

/** What waits on a person in one project, counted (protocol/projectWords.ts says them). */
export interface WaitingCounts {
  /** Everything below added up. */
  total: number;
  gates: number;
  blocked: number;
  lapsedLeases: number;
  failing: number;
  heldOpen: number;
  pausedGoals: number;
  setAside: number;
  /** Shipped todos whose worktree's change waits to be landed (merge or pull request). */
  toLand: number;
}

/** What waits on a person, by kind: the attention list's rows. */
export type AttentionKind = 'gate' | 'land' | 'blocked' | 'check' | 'setAside' | 'paused' | 'failing' | 'lapsed' | 'heldOpen';

export interface AttentionItem {
  kind: AttentionKind;
  /** The gate, todo, monitor, goal or event (its seq) the person acts on. */
  id: string;
  goalId: string | null;
  todoId: string | null;
  /** The gate's question, the todo's or goal's title, the check's command. */
  title: string;
  /** Why it waits (a blocked todo's reason, the failing turns, the branch to land), or null. */
  detail: string | null;
  /** Since when it waits: the oldest first across every project. */
  since: string;
  /** The terminal command a person types to decide it (the dashboard never decides: see docs/dashboard.md). */
  command: string;
  /**
   * An editor link (vscode://loopx.loopx/decide?…) that opens the project in VS Code and shows the decision's usual
   * modal there; null where VS Code has no such decision (or the dashboard was asked for none).
   */
  link: string | null;
}

export type GoalPhase = 'running' | 'scheduled' | 'waiting' | 'stopped' | 'done';

export interface DashboardTodo {
  id: string;
  title: string;
  status: string;
  owner: string | null;
  leaseExpiresAt: string | null;
  reason: string | null;
  evidenceCount: number;
}

export interface DashboardGoal {
  id: string;
  title: string;
  status: string;
  /** running: an agent holds a todo, a turn runs or may start now; scheduled: its next wake is ahead; waiting: only a person moves it on. */
  phase: GoalPhase;
  nextWakeAt: string | null;
  host: string | null;
  counts: { open: number; claimed: number; in_review: number; blocked: number; shipped: number; killed: number };
  /** The goal's todos, those at work and ready first (at most DASHBOARD_TODOS; `moreTodos` counts the rest). */
  todos: DashboardTodo[];
  moreTodos: number;
}

export interface DashboardTurn {
  id: string;
  goalId: string;
  todoId: string | null;
  agent: string;
  host: string;
  startedAt: string;
  endedAt: string | null;
  result: string | null;
  costUsd: number | null;
  tokens: number | null;
  /** Its todo's evidence so far, and the branch its change is on (a worktree), if any. */
  evidence: number;
  branch: string | null;
}

export interface DashboardAgent {
  name: string;
  kind: string;
  lastSeen: string;
  claims: { todoId: string; title: string; leaseExpiresAt: string | null }[];
}

export interface DashboardHandoff {
  id: string;
  todoId: string;
  from: string;
  to: string;
  summary: string;
  status: string;
  at: string;
}

/** One project as the dashboard shows it. `key` names it in the page and in the event stream (not its path). */
export interface DashboardProject {
  key: string;
  name: string;
  root: string;
  store: 'local' | 'team' | null;
  state: 'ok' | 'missing' | 'no_store' | 'unreadable';
  /** A sentence: why the project cannot be read, or what is stale about it (a team server that does not answer). */
  problem: string | null;
  /** The newest event's sequence number: the event stream's cursor for this project. */
  seq: number;
  lastActivity: string | null;
  waiting: WaitingCounts | null;
  attention: AttentionItem[];
  goals: DashboardGoal[];
  turns: DashboardTurn[];
  agents: DashboardAgent[];
  handoffs: DashboardHandoff[];
}

export interface DashboardSnapshot {
  at: string;
  projects: DashboardProject[];
}

/** How many todos a goal shows, recent turns and handoffs a project shows: a glance, not the board. */
export const DASHBOARD_TODOS = 30;
export const DASHBOARD_TURNS = 10;
export const DASHBOARD_HANDOFFS = 5;

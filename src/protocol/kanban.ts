/**
 * The Kanban board's protocol, shared by the extension host and the webview. Types only (and tiny constants):
 * the webview bundle imports this file, the host validates inbound messages with kanbanSchemas.ts.
 */
/** The board panel's webview type (package.json's onWebviewPanel activation event names it too). */
export const BOARD_VIEW_TYPE = 'loopx.board';

export const COLUMNS = ['ready', 'waiting', 'claimed', 'blocked', 'shipped', 'killed'] as const;
export type ColumnId = (typeof COLUMNS)[number];
export const COLUMN_TITLES: Record<ColumnId, string> = {
  ready: 'Ready',
  waiting: 'Waiting',
  claimed: 'In progress',
  blocked: 'Blocked',
  shipped: 'Shipped',
  killed: 'Killed',
};

export type CardStatus = 'open' | 'claimed' | 'blocked' | 'shipped' | 'killed';

/** Everything a card shows and the board's rules need; derived by the host from the store. */
export interface Card {
  id: string;
  goalId: string;
  title: string;
  priority: number;
  status: CardStatus;
  owner: string | null;
  leaseExpiresAt: string | null;
  dependsOn: string[];
  /** Dependencies not shipped yet. */
  unmetDeps: string[];
  evidenceCount: number;
  /** Pending gates on this todo. */
  gates: string[];
  goalActive: boolean;
  revision: number;
  /** The monitor the todo waits on (what loopx checks, when, and what it saw last), or null. */
  monitor: CardMonitor | null;
  /** A recurring todo: how it repeats, in words ("daily at 09:00 (UTC)"). */
  recurrence: string | null;
  /** Not claimable before this time (a recurring occurrence not yet due), or null when it is due. */
  waitsUntil: string | null;
}

export interface CardMonitor {
  id: string;
  kind: 'check' | 'timer';
  /** The command (null for a timer). */
  check: string | null;
  until: string;
  everySeconds: number | null;
  /** The next run (a timer: when it fires). */
  nextCheckAt: string | null;
  expiresAt: string | null;
  lastRun: { n: number; at: string; exitCode: number | null; durationMs: number; error: string | null } | null;
}

export interface GoalSummary {
  id: string;
  title: string;
  status: 'active' | 'paused' | 'done' | 'stopped';
  spent: number;
  turnsPerWindow: number;
  windowHours: number;
  run: boolean;
  reason: string;
  nextWakeAt: string | null;
  /** The goal's background (a goal file's Markdown body), shown as plain text under the toolbar; '' when none. */
  background: string;
}

export type AttentionItem =
  | { kind: 'gate'; gateId: string; goalId: string; todoId: string | null; question: string; askedBy: string; askedAt: string }
  | { kind: 'blocked'; todoId: string; title: string; reason: string }
  | { kind: 'lapsed'; todoId: string; title: string; owner: string; leaseExpiresAt: string }
  | { kind: 'budget'; goalId: string; title: string; nextWakeAt: string | null }
  | { kind: 'monitor'; monitorId: string; todoId: string; title: string; check: string; error: string };

export interface BoardSnapshot {
  me: string;
  now: string;
  goals: GoalSummary[];
  cards: Card[];
  attention: AttentionItem[];
  agents: string[];
  /** In a multi-root workspace, every folder with a store and its goals (the goal selector spans them); else absent. */
  folders?: BoardFolder[];
}

/** A workspace folder the board can switch to, by its index (the webview never sees paths). */
export interface BoardFolder {
  index: number;
  name: string;
  current: boolean;
  goals: { id: string; title: string }[];
}

/** What changed since the last snapshot or patch: the webview touches only these cards. */
export interface BoardPatch {
  now: string;
  upserts: Card[];
  removed: string[];
  goals: GoalSummary[];
  attention: AttentionItem[];
  agents: string[];
  folders?: BoardFolder[];
}

export interface CardDetail {
  card: Card;
  detail: string;
  continuation: string;
  reason: string | null;
  /** Newest first. */
  evidence: {
    seq: number;
    at: string;
    actor: string;
    kind: string;
    /** The sentence ("test evidence added by codex"); `kind` and `seq` are for tooltips. */
    text: string;
    summary: string;
    artifacts: { path: string; sha256: string; bytes: number }[];
    /** Present when loopx ran the command itself: kernel-verified, not the agent's word. */
    run?: { command: string; exitCode: number | null; durationMs: number; error: string | null; check: boolean };
  }[];
  /** Every monitor the todo waited on, newest first, with its recent runs. */
  monitors: {
    id: string;
    status: 'waiting' | 'fired' | 'expired' | 'cancelled';
    kind: 'check' | 'timer';
    check: string | null;
    until: string;
    everySeconds: number | null;
    nextCheckAt: string | null;
    result: string | null;
    runs: { n: number; at: string; exitCode: number | null; durationMs: number; error: string | null; outputTail: string }[];
  }[];
  /** Newest first. `text` is the sentence ("shipped by ada", boardText.ts), `note` what was said with it; `kind` is the event code, for tooltips. */
  history: { seq: number; at: string; actor: string; kind: string; text: string; note: string }[];
  handoffs: { id: string; from: string; to: string; status: string; summary: string; pending: string }[];
}

export type TodoAction = 'claim' | 'release' | 'ship' | 'block' | 'unblock' | 'kill' | 'reassign' | 'addEvidence' | 'askGate' | 'runTurn' | 'cancelMonitor';
export type GateAction = 'approveGate' | 'rejectGate';

/** Webview → host. Every one of these is validated by the host before anything happens. */
export type ToHost =
  | { type: 'ready' }
  | { type: 'move'; requestId: number; todoId: string; to: ColumnId }
  | { type: 'todoAction'; requestId: number; action: TodoAction; todoId: string }
  | { type: 'gateAction'; requestId: number; action: GateAction; gateId: string }
  | { type: 'detail'; requestId: number; todoId: string }
  | { type: 'openArtifact'; path: string }
  | { type: 'switchFolder'; folder: number };

export interface ErrorInfo {
  code: string;
  message: string;
  hint: string | null;
}

/** Host → webview. */
export type ToWebview =
  | { type: 'snapshot'; snapshot: BoardSnapshot }
  | { type: 'patch'; patch: BoardPatch }
  | { type: 'result'; requestId: number; ok: true }
  | { type: 'result'; requestId: number; ok: false; error: ErrorInfo }
  | { type: 'detail'; requestId: number; detail: CardDetail };

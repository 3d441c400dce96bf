/**
 * The board's protocol, shared by the extension host and the webview. Types only (and tiny constants):
 * the webview bundle imports this file, the host validates inbound messages with boardSchemas.ts, whose schema is
 * checked against the types here at compile time.
 */
import type { ErrorBody } from './errors';
import type { BudgetFacts } from '../shared/usageWords';

/** The board panel's webview type (package.json's onWebviewPanel activation event names it too). */
export const BOARD_VIEW_TYPE = 'loopx.board';

export const COLUMNS = ['ready', 'waiting', 'claimed', 'in_review', 'blocked', 'shipped', 'killed'] as const;
export type ColumnId = (typeof COLUMNS)[number];
export const COLUMN_TITLES: Record<ColumnId, string> = {
  ready: 'Ready',
  waiting: 'Waiting',
  claimed: 'In progress',
  in_review: 'In review',
  blocked: 'Blocked',
  shipped: 'Shipped',
  killed: 'Killed',
};

export type CardStatus = 'open' | 'claimed' | 'in_review' | 'blocked' | 'shipped' | 'killed';

/** Everything a card shows and the board's rules need; derived by the host from the store. */
export interface Card {
  id: string;
  goalId: string;
  title: string;
  priority: number;
  status: CardStatus;
  owner: string | null;
  /** The holder is the person at this board: the card says "root (you)", as the Agents view does. */
  ownedByMe: boolean;
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
  /** The zone a recurrence's clock times are in (`at`, cron), so its next time reads in that one clock; else null. */
  recurrenceZone: string | null;
  /** Not claimable before this time (a recurring occurrence not yet due), or null when it is due. */
  waitsUntil: string | null;
  /** The todo's branch when its goal gives turns their own worktrees (`todo show`'s `change`), else null. */
  change: CardChange | null;
  /** Its review, once its change was first submitted (its goal asks for one), else null: reviewWords.ts says it. */
  review: CardReview | null;
  /**
   * The columns the person at the board may move the card to, in the board's order: the kernel's answer
   * (kernel/todos/boardMoves.ts) when the board was read. The webview greys out the others; a drop is still asked of
   * the host, which asks the kernel again.
   */
  moves: ColumnId[];
}

/**
 * A todo's branch as a card shows it: read from git by the host (kernel/worktrees/changeSummary.ts, the data
 * `todo show` prints), never by the webview. Words for it are in changeWords.ts.
 */
export interface CardChange {
  branch: string;
  base: string;
  /** open (not landed yet), merged, pr (opened as a pull request) or discarded. */
  state: 'open' | 'merged' | 'pr' | 'discarded';
  /** The branch still exists (a discarded one is gone). */
  exists: boolean;
  /** Commits on the branch that its base does not have (at most 50 are counted). */
  commits: number;
  /** The newest commits' subjects, newest first (a few, for tooltips and the detail). */
  subjects: string[];
  files: number;
  insertions: number;
  deletions: number;
  /** Files changed in its worktree and not committed yet (the first few); null when its folder is gone. */
  uncommitted: string[] | null;
  /** How many files are not committed (the list above may be cut short). */
  uncommittedCount: number;
  prUrl: string | null;
}

/** A todo's review as a card shows it: this round, who made and who reviews the change, and this round's verdict. */
export interface CardReview {
  round: number;
  /** The goal's rounds before a person decides (null: its review was turned off since). */
  maxRounds: number | null;
  implementer: string;
  /** The agent reviewing it now (a live review claim), else null. */
  reviewer: string | null;
  /** This round's verdict so far, by whom, and what they said. */
  verdict: 'approve' | 'request_changes' | 'could_not_review' | null;
  verdictBy: string | null;
  summary: string | null;
  findings: { severity: string; title: string; file: string | null; line: number | null }[];
  /** Sent back with changes asked: its implementer (or an agent on its host) alone may take it until then; else null. */
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
  /** An agent set the check and no person allowed it yet: nothing runs until one does. */
  waitsForPerson: boolean;
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
  /** Another agent reviews what its agents ship (peer review): the board shows its In review column. */
  review: boolean;
  /** Its todos by status, and who holds its live claims: the should-run sentence says why from these. */
  counts: Record<CardStatus, number>;
  liveClaims: number;
  holders: string[];
  windingDown: number;
  maxConcurrent: number;
  /** budget_exhausted: which budget stops the next turn (turns, tokens or dollars); the sentence names it. */
  budget?: 'turns' | 'tokens' | 'dollars';
  /** What the window's turns used, against the goal's caps (null where it has none). */
  usage: BudgetFacts;
  /** That usage in words ("$3.20 of $10 · 410k tokens in the last 24 h; $6.80 left"); null when there is nothing to say. */
  usageLine: string | null;
}

export type AttentionItem =
  | { kind: 'gate'; gateId: string; goalId: string; todoId: string | null; question: string; askedBy: string; askedAt: string }
  | { kind: 'blocked'; todoId: string; title: string; reason: string }
  | { kind: 'lapsed'; todoId: string; title: string; owner: string; leaseExpiresAt: string }
  | { kind: 'budget'; goalId: string; title: string; nextWakeAt: string | null }
  /** A goal an agent or a script created (it starts paused) or an agent paused: only a person starts it. */
  | { kind: 'paused'; goalId: string; title: string; by: string; proposed: boolean }
  /** An active goal whose every todo has shipped: a person marks it done (or adds work). */
  | { kind: 'finished'; goalId: string; title: string; shipped: number }
  | { kind: 'monitor'; monitorId: string; todoId: string; title: string; check: string; error: string }
  /** A check an agent set that loopx runs only once a person allows it. */
  | { kind: 'checkApproval'; monitorId: string; todoId: string; title: string; check: string; addedBy: string }
  /** A shipped todo's branch nobody merged, opened as a pull request or discarded yet: a person lands it. */
  | { kind: 'land'; todoId: string; title: string; branch: string; base: string; size: string }
  /** A todo whose last turns in a row made no progress: loopx keeps retrying it, each time later. */
  | { kind: 'failing'; todoId: string; title: string; failures: number; lastEnd: string; retryAt: string };

export interface BoardSnapshot {
  me: string;
  now: string;
  goals: GoalSummary[];
  cards: Card[];
  attention: AttentionItem[];
  agents: string[];
  /** In a multi-root workspace, every folder with a store and its goals (the goal selector spans them); else absent. */
  folders?: BoardFolder[];
  /** The team store's server does not answer: the banner over the board (absent while the store answers). */
  notice?: BoardNotice;
}

/** What the board's banner may offer: ask the server again, or show the replica as this window last saw it. */
export const NOTICE_ACTIONS = ['retry', 'showLastState'] as const;
export type NoticeAction = (typeof NOTICE_ACTIONS)[number];

/**
 * The board's own sentence while a team store cannot be reached: the Goals view's words (teamReach.ts), and the
 * buttons the banner offers (Retry always; Show the Last State until the person chose it). `lastState`: the cards
 * shown are the replica's, possibly out of date; otherwise the board shows no cards.
 */
export interface BoardNotice {
  text: string;
  actions: NoticeAction[];
  lastState: boolean;
  /** The error's own words, for a tooltip. */
  detail: string;
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
  /** As in the snapshot: present while the store cannot be reached; a patch without it means the banner goes. */
  notice?: BoardNotice;
}

export interface CardDetail {
  card: Card;
  detail: string;
  continuation: string;
  reason: string | null;
  /** Gates on this todo that wait for a person's decision, oldest first (the detail offers Approve and Reject). */
  gates: { id: string; question: string; askedBy: string; askedAt: string }[];
  /** The turns that worked on this todo, newest first; `result` is a sentence ("completed the work"). */
  turns: {
    id: string;
    agent: string;
    host: string;
    startedAt: string;
    endedAt: string | null;
    result: string;
    exitCode: number | null;
    /** What it used, in words ("$0.0038 · 470 tokens"); null while it runs or when its host reported nothing. */
    used: string | null;
  }[];
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
  /** Every round of its review, the first first: what was submitted and claimed checked, and the verdict. */
  reviews: {
    round: number;
    implementer: string;
    submittedAt: string;
    validation: string;
    scope: string;
    reviewer: string | null;
    verdict: 'approve' | 'request_changes' | 'could_not_review' | null;
    byPerson: boolean;
    summary: string | null;
    decidedAt: string | null;
    findings: { severity: string; confidence: number; title: string; body: string; file: string | null; line: number | null }[];
  }[];
  handoffs: { id: string; from: string; to: string; status: string; summary: string; pending: string }[];
}

/** What a card's buttons and menu ask for: the one list the type and the host's schema come from. */
export const TODO_ACTIONS = [
  'claim',
  'release',
  'ship',
  'block',
  'unblock',
  'kill',
  'reassign',
  'addEvidence',
  'askGate',
  'runTurn',
  'cancelMonitor',
  'approveMonitor',
  // A change in review: a person's verdict instead of its reviewer's.
  'approveReview',
  'requestChanges',
  'viewReviewChange',
  // A todo's branch (worktree goals): the diff, and the three ways a person lands it.
  'showChanges',
  'mergeBranch',
  'openPullRequest',
  'discardBranch',
] as const;
export type TodoAction = (typeof TODO_ACTIONS)[number];
export const GATE_ACTIONS = ['approveGate', 'rejectGate'] as const;
export type GateAction = (typeof GATE_ACTIONS)[number];
export const GOAL_ACTIONS = ['resumeGoal', 'markGoalDone'] as const;
export type GoalAction = (typeof GOAL_ACTIONS)[number];

export type ResultOk = { type: 'result'; requestId: number; ok: true };
/** `decide`: the gates whose decision would let a refused move through (the board offers Approve and Reject there). */
export type ResultFailed = { type: 'result'; requestId: number; ok: false; error: ErrorBody; decide?: string[] };
export type DetailAnswer = { type: 'detail'; requestId: number; detail: CardDetail };
/** The board at a past moment, as the host answers a history request: the snapshot replayed to event `seq`. */
export interface PastBoard {
  seq: number;
  /** The newest event now. */
  head: number;
  /** When event `seq` happened (the board's "now" then), and when the first event did. */
  at: string;
  firstAt: string;
  /** What event `seq` was, as a sentence ("gate Q3 asked by codex"); its code is for the tooltip. */
  sentence: string;
  kind: string;
  snapshot: BoardSnapshot;
}

export type HistoryAnswer = { type: 'history'; requestId: number; past: PastBoard };

/** What "Open on Board" asks the board to show: a card's detail, or one goal's cards. */
export interface BoardReveal {
  todoId: string | null;
  goalId: string | null;
}

/** Host → webview. */
export type ToWebview =
  | { type: 'snapshot'; snapshot: BoardSnapshot }
  | { type: 'patch'; patch: BoardPatch }
  | ({ type: 'reveal' } & BoardReveal)
  | ResultOk
  | ResultFailed
  | DetailAnswer
  | HistoryAnswer;

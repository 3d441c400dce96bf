/**
 * A goal's story as plain data (one shape: the kernel builds it, the story view and the review page read it): what happened (a timeline), how the open work went down, how much shipped per day,
 * where the time went, and what it cost. Built from the event log by story.ts; the story view, the review page and
 * their charts read only this. The webview's copy of these types is src/protocol/storyProtocol.ts (checked equal
 * at compile time in the extension, which passes one to the other).
 */
export type TimeKind = 'working' | 'person' | 'world' | 'queued';
export const TIME_KINDS: readonly TimeKind[] = ['working', 'person', 'world', 'queued'];

export type StoryItem =
  | {
      kind: 'turn';
      id: string;
      todoId: string | null;
      agent: string;
      start: string;
      end: string | null;
      result: string | null;
      spent: boolean;
    }
  | { kind: 'ship'; todoId: string; at: string; by: string }
  | {
      kind: 'gate';
      id: string;
      todoId: string | null;
      question: string;
      askedBy: string;
      start: string;
      end: string | null;
      status: 'pending' | 'approved' | 'rejected' | 'cancelled';
      decidedBy: string | null;
    }
  | { kind: 'block'; todoId: string; reason: string; by: string; start: string; end: string | null }
  | {
      kind: 'monitor';
      id: string;
      todoId: string;
      what: string;
      start: string;
      end: string | null;
      status: 'waiting' | 'fired' | 'expired' | 'cancelled';
    }
  | { kind: 'handoff'; id: string; todoId: string; from: string; to: string; start: string; end: string | null }
  /** A round of peer review: from its submission by `by` to the verdict that ended it (could-not-review ends none). */
  | {
      kind: 'review';
      todoId: string;
      round: number;
      by: string;
      reviewer: string | null;
      verdict: 'approve' | 'request_changes' | null;
      start: string;
      end: string | null;
    };

export type StoryItemKind = StoryItem['kind'];

/** One day (in the viewer's time zone, as an offset): what happened and where the todo-hours went. */
export interface StoryDay {
  /** YYYY-MM-DD. */
  day: string;
  added: number;
  shipped: number;
  killed: number;
  turns: number;
  turnsFailed: number;
  /** Turns counted against the budget. */
  spent: number;
  /** Milliseconds of todo-time in each state (each open todo counts: two todos waiting an hour are two hours). */
  time: Record<TimeKind, number>;
  /** Dollars the day's turns cost, once turns carry usage; null while none does. */
  cost: number | null;
}

export interface Story {
  goal: { id: string; title: string; status: string; objective: string; createdAt: string };
  now: string;
  /** The viewer's offset from UTC in minutes (east positive): the days are theirs. */
  offsetMinutes: number;
  /** From the goal's first event to now. */
  range: { from: string; to: string };
  /** The goal's events the story was built from. */
  events: number;
  totals: {
    todos: number;
    open: number;
    shipped: number;
    killed: number;
    blocked: number;
    turns: number;
    turnsFailed: number;
    gatesAsked: number;
    gatesPending: number;
    /** The median wait from a gate asked to its decision (decided gates only), or null. */
    medianGateWaitMs: number | null;
    monitors: number;
    handoffs: number;
    time: Record<TimeKind, number>;
    /** Null until turns carry usage. */
    cost: number | null;
  };
  /** Newest last; at most TIMELINE_LIMIT items (the newest), `timelineOmitted` says how many older ones were left out. */
  timeline: StoryItem[];
  timelineOmitted: number;
  /** The title of every todo the timeline names. */
  titles: Record<string, string>;
  /** Open work over time (a step series, at most BURNDOWN_POINTS points): open = added and not yet shipped or killed. */
  burndown: { at: string; open: number; done: number }[];
  days: StoryDay[];
  /**
   * Cost per day: each day's `cost` sums the `usage.costUsd` of the turns that finished that day; `available` is true
   * once any turn's cost is known (else the view says no turn reported what it cost yet).
   */
  cost: { available: boolean; note: string };
  /**
   * The prompt cache over the goal's life (kernel/prices/cacheFigures.ts): the share of its turns' input read from it
   * (null while no turn's input is known) and the dollars it saved at the price table's rates (null: no priced model).
   */
  cache: { hitShare: number | null; savedUsd: number | null };
}

import type { Row, SqliteDb } from './db/sqliteDb';
import { rowReader } from './rowReader';

/** Rows are checked at the store boundary (rowReader); the API shapes below are what every adapter sees. */
export const GOAL_STATUSES = ['active', 'paused', 'done', 'stopped'] as const;
export const TODO_STATUSES = ['open', 'claimed', 'in_review', 'blocked', 'shipped', 'killed'] as const;
export const GATE_STATUSES = ['pending', 'approved', 'rejected', 'cancelled'] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];
export type TodoStatus = (typeof TODO_STATUSES)[number];
export type GateStatus = (typeof GATE_STATUSES)[number];

/** How bad a finding is: P0 (breaks something that matters) to P3 (a nit), as reviewers and Codex's review mode say. */
export const SEVERITIES = ['P0', 'P1', 'P2', 'P3'] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * A goal's review: who reviews each change its agents ship before it is done, how many rounds before a person
 * decides, and which findings block approval. A person's decision (event `goal.review_set`); an agent proposing a goal
 * may ask for review in it (`goal.created`), never change or turn it off.
 */
/** How long a claim's lease lasts unless asked otherwise (claims.ts); a change sent back from review waits as long. */
export const DEFAULT_LEASE_SECONDS = 30 * 60;

export interface ReviewPolicy {
  /** The host (agent CLI) whose agents review, e.g. codex; null: any host. */
  reviewerHost: string | null;
  /** One agent that reviews; null: any agent but the implementer. */
  reviewerAgent: string | null;
  /** The reviewer must run on another host than the implementer's (never the same agent, in any case). */
  otherHost: boolean;
  /** Rounds of changes asked before the todo becomes a question for a person (1–10). */
  maxRounds: number;
  /** The severities a finding blocks approval at: a reviewer approving with one of them open is refused. */
  blocking: Severity[];
  /**
   * An approved change whose acceptance check passed lands on its own (kernel/autoLand.ts): a person's standing
   * decision. Present only when on, so a policy from before it reads as it did.
   */
  autoLand?: true;
}

/** What a person (or an agent asking for review in its goal) gives; the rest takes the defaults. */
export interface ReviewPolicyInput {
  reviewerHost?: string | null;
  reviewerAgent?: string | null;
  otherHost?: boolean;
  maxRounds?: number;
  blocking?: readonly string[];
  autoLand?: boolean;
}

/** A reviewer's finding on a change (todos/review.ts checks it; the `reviews` table keeps it). */
export interface Finding {
  severity: Severity;
  /** How sure the reviewer is, 0 to 1. */
  confidence: number;
  file: string | null;
  line: number | null;
  title: string;
  body: string;
}

export const DEFAULT_MAX_ROUNDS = 3;
export const DEFAULT_BLOCKING: readonly Severity[] = ['P0', 'P1', 'P2'];

/** The review a todo that asks for one itself gets when its goal sets none: any agent but the implementer. */
export function defaultReviewPolicy(): ReviewPolicy {
  return { reviewerHost: null, reviewerAgent: null, otherHost: false, maxRounds: DEFAULT_MAX_ROUNDS, blocking: [...DEFAULT_BLOCKING] };
}

/** A todo's final statuses: nothing moves a todo out of shipped or killed (the one spelling of "terminal"). */
export function isTerminalStatus(status: string | null): status is 'shipped' | 'killed' {
  return status === 'shipped' || status === 'killed';
}

export const goalFromRow = (row: Row) => {
  const r = rowReader('goals', row);
  return {
    id: r.text('id'),
    title: r.text('title'),
    objective: r.text('objective'),
    scope: r.stringList('scope'),
    status: r.oneOf('status', GOAL_STATUSES),
    policy: {
      turnsPerWindow: r.int('turns_per_window'),
      windowHours: r.num('window_hours'),
      maxConcurrent: r.int('max_concurrent'),
      cooldownSeconds: r.int('cooldown_seconds'),
      /** Caps on what the window's turns use (null: none): tokens in and out, and US dollars. */
      tokensPerWindow: r.maybeInt('tokens_per_window'),
      dollarsPerWindow: row.dollars_per_window === null || row.dollars_per_window === undefined ? null : r.num('dollars_per_window'),
    },
    /** The acceptance check a human set for the goal's todos (a shell command), or null. */
    check: r.maybeText('check_command'),
    /** Patterns of monitor checks agents may set for this goal that run without asking a person (a person's decision). */
    allowedChecks: r.stringList('allowed_checks'),
    background: r.text('background'),
    /** The goal file it was last applied from (workspace-relative), or null. */
    filePath: r.maybeText('file_path'),
    /** The branch its turns' worktrees start from, or null: its turns work in the main tree (src/kernel/worktrees/). */
    worktreeBase: r.maybeText('worktree_base'),
    /** The command a person set to make a fresh worktree ready (e.g. npm ci), run there before a turn's host; or null. */
    worktreeSetup: r.maybeText('worktree_setup'),
    /** The host (agent CLI) a person chose for its turns (goals/goalHost.ts), or null: chosen at each run. */
    host: r.maybeText('host'),
    /** Who reviews what its agents ship before it is done (goals/goalReview.ts), or null: no review. */
    review: r.maybeJson<ReviewPolicy>('review'),
    createdAt: r.text('created_at'),
    updatedAt: r.text('updated_at'),
  };
};
export type Goal = ReturnType<typeof goalFromRow>;

export const todoFromRow = (row: Row) => {
  const r = rowReader('todos', row);
  return {
    id: r.text('id'),
    goalId: r.text('goal_id'),
    title: r.text('title'),
    detail: r.text('detail'),
    priority: r.int('priority'),
    status: r.oneOf('status', TODO_STATUSES),
    owner: r.maybeText('owner'),
    leaseExpiresAt: r.maybeText('lease_expires_at'),
    dependsOn: r.csv('depends_on'),
    continuation: r.text('continuation'),
    reason: r.maybeText('reason'),
    revision: r.int('revision'),
    evidenceCount: r.int('evidence_count'),
    /** The todo's own acceptance check (a human set it); when null, the goal's check applies. */
    check: r.maybeText('check_command'),
    recurrence: r.maybeJson<Recurrence>('recurrence'),
    /** Not claimable before this time (the next occurrence of a recurring todo). */
    readyAt: r.maybeText('ready_at'),
    /** The occurrence of the same recurring todo before this one. */
    previousId: r.maybeText('previous_id'),
    /** The stable key a goal file names it by, or null. */
    key: r.maybeText('key'),
    /** The agent whose change is (or was last) under review (todos/review.ts), or null. */
    implementer: r.maybeText('implementer'),
    /** The review rounds so far: 1 from its first submission. */
    reviewRound: r.int('review_round'),
    /** Its change is reviewed whatever its goal's setting (asked for when it was added). */
    review: r.int('review') === 1,
    createdAt: r.text('created_at'),
    updatedAt: r.text('updated_at'),
  };
};
export type Todo = ReturnType<typeof todoFromRow>;

export const gateFromRow = (row: Row) => {
  const r = rowReader('gates', row);
  return {
    id: r.text('id'),
    goalId: r.text('goal_id'),
    todoId: r.maybeText('todo_id'),
    question: r.text('question'),
    status: r.oneOf('status', GATE_STATUSES),
    askedBy: r.text('asked_by'),
    askedAt: r.text('asked_at'),
    decidedBy: r.maybeText('decided_by'),
    decidedAt: r.maybeText('decided_at'),
    note: r.maybeText('note'),
  };
};
export type Gate = ReturnType<typeof gateFromRow>;

export const HANDOFF_STATUSES = ['offered', 'accepted', 'superseded'] as const;

export const handoffFromRow = (row: Row) => {
  const r = rowReader('handoffs', row);
  return {
    id: r.text('id'),
    todoId: r.text('todo_id'),
    from: r.text('from_agent'),
    to: r.text('to_agent'),
    summary: r.text('summary'),
    done: r.text('done'),
    pending: r.text('pending'),
    permissions: r.stringList('permissions'),
    status: r.oneOf('status', HANDOFF_STATUSES),
    createdAt: r.text('created_at'),
    acceptedAt: r.maybeText('accepted_at'),
  };
};
export type Handoff = ReturnType<typeof handoffFromRow>;

export const AGENT_KINDS = ['codex', 'claude', 'custom', 'human'] as const;

export const agentFromRow = (row: Row) => {
  const r = rowReader('agents', row);
  return {
    name: r.text('name'),
    kind: r.oneOf('kind', AGENT_KINDS),
    firstSeen: r.text('first_seen'),
    lastSeen: r.text('last_seen'),
    holding: r.csv('holding'),
  };
};
export type Agent = ReturnType<typeof agentFromRow>;

/** The SELECT list that todoFromRow expects (all on the todos row: no joins or subqueries per todo). */
export const TODO_COLUMNS = `t.id, t.goal_id, t.title, t.detail, t.priority, t.status, t.owner, t.lease_expires_at, t.continuation,
  t.reason, t.revision, t.created_at, t.updated_at, t.depends_on, t.evidence_count, t.check_command, t.recurrence, t.ready_at, t.previous_id, t.key,
  t.implementer, t.review_round, t.review`;

/**
 * How a recurring todo repeats: every `every` seconds (at `at`, HH:MM, when `every` is whole days), or on a cron
 * schedule; both read in the time zone `tz` recorded when the todo was added. `text` says it in words.
 */
export interface Recurrence {
  every?: number;
  at?: string;
  cron?: string;
  tz: string;
  text: string;
}

/** The next number for a new row of `table` (its id is formatId's). */
export function nextNum(db: SqliteDb, table: 'goals' | 'todos' | 'gates' | 'handoffs' | 'turns' | 'monitors' | 'hooks'): number {
  // Above the highest number this store ever handed out, even if a restore brought back an older content.
  return Number(
    db
      .prepare(
        `SELECT max(coalesce((SELECT max(num) FROM ${table}), 0), coalesce((SELECT num FROM id_high_water WHERE entity = ?), 0)) + 1 AS n`,
      )
      .get(table)?.n ?? 1,
  );
}

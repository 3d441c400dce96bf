import type { Row, SqliteDb } from '../db/sqliteDb';
import { rowReader } from '../rowReader';
import { type Gate, type Handoff, type Recurrence, type Todo, TODO_STATUSES, gateFromRow } from '../model';
import { type Turn, listTurns } from '../turns/turnQueries';
import { type StatusReport, statusReport } from './status';
import { type Evidence, listEvidence } from '../evidence/evidenceQueries';
import { type Monitor, type MonitorRun, listMonitors, monitorRuns, waitingMonitor } from '../monitors/monitorQueries';
import type { StoredEvent } from '../events/eventTypes';
import { history } from '../events/log';
import { listGoals } from '../goals/goalQueries';
import { listHandoffs } from '../handoffs/handoffs';
import { getTodo } from '../todos/todoQueries';
import { type ReviewRound, reviewRounds, roundFromRow } from '../todos/reviewQueries';
import { waitsUntil } from '../todos/reviewHoldQueries';
import { iso } from '../time';

/**
 * What the board shows of one todo: its own fields and the facts the readiness rules look at (unshipped
 * dependencies, pending gates, whether its goal is active, the monitor it waits on). Which column that puts it in
 * is decided by the rules (readiness and lease liveness in todoQueries.ts), not here.
 */
export interface TodoCardFacts {
  id: string;
  goalId: string;
  title: string;
  priority: number;
  status: Todo['status'];
  owner: string | null;
  leaseExpiresAt: string | null;
  dependsOn: string[];
  evidenceCount: number;
  revision: number;
  recurrence: Recurrence | null;
  readyAt: string | null;
  unmetDeps: string[];
  pendingGates: string[];
  goalActive: boolean;
  /** The monitor the todo waits on (only while it is open or blocked). */
  monitor: Monitor | null;
  /** Its review's current round, once its change was submitted (todos/review.ts), else null. */
  review: CardReviewFacts | null;
}

/** A todo's review round as a card reads it. */
export interface CardReviewFacts {
  round: ReviewRound;
  maxRounds: number | null;
  /** Reviewing it now: the live review claim's holder. */
  reviewer: string | null;
  /** Sent back with changes asked, it waits for its implementer until then (reviewHoldQueries.ts); else null. */
  waitsUntil: string | null;
}

const CARD_COLUMNS =
  'id, goal_id, title, priority, status, owner, lease_expires_at, depends_on, evidence_count, revision, recurrence, ready_at';

type Extras = Pick<TodoCardFacts, 'unmetDeps' | 'pendingGates' | 'goalActive' | 'monitor' | 'review'>;

function factsFromRow(row: Row, extras: (id: string, goalId: string, status: Todo['status']) => Extras): TodoCardFacts {
  const r = rowReader('todos', row);
  const id = r.text('id');
  const goalId = r.text('goal_id');
  const status = r.oneOf('status', TODO_STATUSES);
  return {
    id,
    goalId,
    title: r.text('title'),
    priority: r.int('priority'),
    status,
    owner: r.maybeText('owner'),
    leaseExpiresAt: r.maybeText('lease_expires_at'),
    dependsOn: r.csv('depends_on'),
    evidenceCount: r.int('evidence_count'),
    revision: r.int('revision'),
    recurrence: r.maybeJson<Recurrence>('recurrence'),
    readyAt: r.maybeText('ready_at'),
    ...extras(id, goalId, status),
  };
}

const monitorShown = (status: Todo['status']) => status === 'open' || status === 'blocked';

/** Every todo in claim-number order, with its facts: a handful of set queries, not a query per todo. */
export function todoCards(db: SqliteDb, at: string): TodoCardFacts[] {
  const activeGoals = new Set(
    db
      .prepare(`SELECT id FROM goals WHERE status = 'active'`)
      .all()
      .map((r) => String(r.id)),
  );
  const unmet = groupBy(
    db
      .prepare(
        `SELECT d.todo_id AS k, d.depends_on AS v FROM todo_deps d JOIN todos dt ON dt.id = d.depends_on WHERE dt.status <> 'shipped'`,
      )
      .all(),
  );
  const gates = groupBy(
    db.prepare(`SELECT todo_id AS k, id AS v FROM gates WHERE status = 'pending' AND todo_id IS NOT NULL ORDER BY num`).all(),
  );
  const monitors = new Map(listMonitors(db, { status: 'waiting' }).map((m) => [m.todoId, m]));
  const rounds = currentRounds(db);
  return db
    .prepare(`SELECT ${CARD_COLUMNS} FROM todos ORDER BY num`)
    .all()
    .map((row) =>
      factsFromRow(row, (id, goalId, status) => ({
        unmetDeps: unmet.get(id) ?? [],
        pendingGates: gates.get(id) ?? [],
        goalActive: activeGoals.has(goalId),
        monitor: monitorShown(status) ? (monitors.get(id) ?? null) : null,
        review: reviewFacts(rounds.get(id), row, status, at),
      })),
    );
}

/** One todo's facts (a board move reads this, not the whole board), or null when there is no such todo. */
export function todoCardFor(db: SqliteDb, todoId: string, at: string): TodoCardFacts | null {
  const row = db.prepare(`SELECT ${CARD_COLUMNS} FROM todos WHERE id = ?`).get(todoId);
  if (!row) return null;
  return factsFromRow(row, (id, goalId, status) => ({
    unmetDeps: db
      .prepare(
        `SELECT d.depends_on AS id FROM todo_deps d JOIN todos dt ON dt.id = d.depends_on WHERE d.todo_id = ? AND dt.status <> 'shipped' ORDER BY dt.num`,
      )
      .all(id)
      .map((r) => String(r.id)),
    pendingGates: db
      .prepare(`SELECT id FROM gates WHERE todo_id = ? AND status = 'pending' ORDER BY num`)
      .all(id)
      .map((r) => String(r.id)),
    goalActive: db.prepare('SELECT status FROM goals WHERE id = ?').get(goalId)?.status === 'active',
    monitor: monitorShown(status) ? waitingMonitor(db, id) : null,
    review: reviewFacts(currentRounds(db, id).get(id), row, status, at),
  }));
}

/** Each todo's current review round (the round its row names) with its goal's rounds: one query for the board. */
function currentRounds(db: SqliteDb, todoId?: string): Map<string, { round: ReviewRound; maxRounds: number | null }> {
  const rows = db
    .prepare(
      `SELECT r.*, g.review AS goal_review FROM reviews r JOIN todos t ON t.id = r.todo_id AND r.round = t.review_round
        JOIN goals g ON g.id = t.goal_id WHERE ? IS NULL OR r.todo_id = ?`,
    )
    .all(todoId ?? null, todoId ?? null);
  return new Map(
    rows.map((row) => {
      const policy = row.goal_review === null ? null : (JSON.parse(String(row.goal_review)) as { maxRounds?: number });
      return [String(row.todo_id), { round: roundFromRow(row), maxRounds: policy?.maxRounds ?? null }];
    }),
  );
}

function reviewFacts(
  current: { round: ReviewRound; maxRounds: number | null } | undefined,
  row: Row,
  status: Todo['status'],
  at: string,
): CardReviewFacts | null {
  if (!current) return null;
  const owner = row.owner as string | null;
  const live = status === 'in_review' && owner !== null && String(row.lease_expires_at) > at;
  return { ...current, reviewer: live ? owner : null, waitsUntil: waitsUntil(status, current.round, at) };
}

function groupBy(rows: Row[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const row of rows) {
    const key = String(row.k);
    const list = out.get(key) ?? [];
    list.push(String(row.v));
    out.set(key, list);
  }
  return out;
}

/** Everything the board is built from, read in one transaction. */
export interface BoardFacts {
  report: StatusReport;
  cards: TodoCardFacts[];
  agents: string[];
  /** Each goal's background (a goal file's Markdown body), '' when none. */
  backgrounds: Record<string, string>;
}

export function boardFacts(db: SqliteDb, nowMs: number): BoardFacts {
  return {
    report: statusReport(db, nowMs),
    cards: todoCards(db, iso(nowMs)),
    agents: db
      .prepare('SELECT name FROM agents ORDER BY name')
      .all()
      .map((r) => String(r.name)),
    backgrounds: Object.fromEntries(listGoals(db).map((g) => [g.id, g.background])),
  };
}

/**
 * A card's detail: the todo, the gates that wait for a decision on it, its evidence, every monitor it waited on with
 * recent runs, the turns that worked on it, history and handoffs.
 */
export interface TodoDetailFacts {
  todo: Todo;
  pendingGates: Gate[];
  turns: Turn[];
  evidence: Evidence[];
  monitors: (Monitor & { runs: MonitorRun[] })[];
  history: StoredEvent[];
  handoffs: Handoff[];
  reviews: ReviewRound[];
}

export function todoDetailFacts(db: SqliteDb, todoId: string): TodoDetailFacts {
  const todo = getTodo(db, todoId);
  return {
    todo,
    pendingGates: db.prepare(`SELECT * FROM gates WHERE todo_id = ? AND status = 'pending' ORDER BY num`).all(todo.id).map(gateFromRow),
    turns: listTurns(db, { todoId: todo.id, limit: 20 }).turns,
    evidence: listEvidence(db, { todoId, limit: 50 }),
    monitors: listMonitors(db, { todoId, limit: 20 }).map((m) => ({ ...m, runs: monitorRuns(db, m.id, 10) })),
    history: history(db, { todoId, limit: 60 }),
    handoffs: listHandoffs(db, todoId),
    reviews: reviewRounds(db, todoId),
  };
}

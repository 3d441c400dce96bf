import * as vscode from 'vscode';
import type { Agent, Gate, Goal, Todo, TodoStatus } from '../../kernel/model';
import type { SqliteDb } from '../../kernel/db/sqliteDb';
import { listAgents, listGates, listGoals, todosInClaimOrder } from '../../kernel/queries/lists';
import { findTodo } from '../../kernel/queries/lookups';
import { readyTodoIds } from '../../kernel/todos/ready';
import { type StatusReport, statusReport } from '../../kernel/queries/status';
import { type Evidence, listEvidence } from '../../kernel/evidence/evidenceQueries';
import { type Monitor, listMonitors } from '../../kernel/monitors/monitorQueries';
import { type RunnerSeen, recentRunners } from '../../kernel/turns/runners';
import { countTurns } from '../../kernel/turns/turnQueries';
import { listWorktreeRows } from '../../kernel/worktrees/worktreeRows';
import type { CardChange } from '../../protocol/boardProtocol';
import { BranchChanges } from '../worktrees/branchChanges';
import { Disposable } from '../util/lifecycle';
import type { StoreSession } from './storeSession';

/**
 * The read model the views render. Queries run on demand against one SQLite connection and are cached until the
 * store changes; a change invalidates everything and fires `onDidChange` once (the views then re-ask only for
 * what is visible). The views never write: actions go through kernel operations.
 */
export class StoreModel extends Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;
  private cache = new Map<string, unknown>();
  private readonly branches: BranchChanges;

  constructor(
    private readonly session: StoreSession,
    onBranchError: (todoId: string, error: unknown) => void = () => {},
  ) {
    super();
    this.branches = new BranchChanges(onBranchError);
    this.register(session.onDidChange(() => this.invalidate()));
  }

  get ready(): boolean {
    return this.session.kernel !== undefined;
  }

  /** `fresh`: git is asked about every branch again too (Refresh, a landing), not only the store. */
  invalidate(fresh = false): void {
    if (fresh) this.branches.forget();
    this.cache = new Map();
    this.changed.fire();
  }

  private cached<T>(key: string, compute: (db: SqliteDb, now: number) => T, fallback: T): T {
    const kernel = this.session.kernel;
    if (!kernel) return fallback;
    if (this.cache.has(key)) return this.cache.get(key) as T;
    const value = kernel.read(compute);
    this.cache.set(key, value);
    return value;
  }

  status(): StatusReport | undefined {
    return this.cached('status', (db, now) => statusReport(db, now), undefined);
  }

  goals(): Goal[] {
    return this.cached('goals', (db) => listGoals(db), []);
  }

  /** Todos of one goal in one status, in claim order (priority, then age). */
  todos(goalId: string, status: TodoStatus): Todo[] {
    return this.cached(`todos:${goalId}:${status}`, (db) => todosInClaimOrder(db, goalId, status), []);
  }

  todo(id: string): Todo | undefined {
    return this.cached(`todo:${id}`, (db) => findTodo(db, id), undefined);
  }

  /** Ids of the open todos a claim could take now: the Ready group of the Goals view (the kernel's rule). */
  readyIds(goalId: string): Set<string> {
    return this.cached(`ready:${goalId}`, (db, now) => readyTodoIds(db, new Date(now).toISOString(), goalId), new Set<string>());
  }

  /** How many agent turns the store has recorded (any result). */
  turnCount(): number {
    return this.cached('turnCount', (db) => countTurns(db), 0);
  }

  gates(): Gate[] {
    return this.cached('gates', (db) => listGates(db), []);
  }

  agents(): Agent[] {
    return this.cached('agents', (db) => listAgents(db), []);
  }

  /** Waiting monitors first, then the most recent ended ones. */
  monitors(): Monitor[] {
    return this.cached('monitors', (db) => listMonitors(db, { limit: 50 }), []);
  }

  /** Agents that ran as `loopx run` and were seen in the last day, by agent name. */
  runners(): Map<string, RunnerSeen> {
    return this.cached(
      'runners',
      (db, now) => new Map(recentRunners(db, new Date(now - 24 * 3600_000).toISOString()).map((r) => [r.agent, r])),
      new Map(),
    );
  }

  evidence(filter: { goalId?: string; todoId?: string }): Evidence[] {
    return this.cached(`evidence:${filter.goalId ?? ''}:${filter.todoId ?? ''}`, (db) => listEvidence(db, { ...filter, limit: 200 }), []);
  }

  /**
   * Each todo's branch, by todo id (goals with worktrees only): the store's rows read in one transaction, then git
   * outside it, through BranchChanges (what `todo show` prints; git is not asked on every store change).
   */
  changes(): Map<string, CardChange> {
    const kernel = this.session.kernel;
    if (!kernel) return new Map();
    const cached = this.cache.get('changes') as Map<string, CardChange> | undefined;
    if (cached) return cached;
    const rows = kernel.read((db) => listWorktreeRows(db));
    const value = rows.length ? this.branches.read(kernel.root, rows) : new Map<string, CardChange>();
    this.cache.set('changes', value);
    return value;
  }
}

import * as vscode from 'vscode';
import { Kernel } from '../../kernel/kernel';
import { EXIT, LoopxError } from '../../kernel/errors';
import { StoreWatcher } from '../../runtime/watch';
import { describeError } from '../../runtime/describeError';
import { writeStatusMd } from '../../runtime/projections/statusMd';
import { type GitignoreResult, ensureGitignore } from '../../runtime/gitignore';
import type { Actor } from '../../kernel/events/eventTypes';
import { Disposable, MutableDisposable, toDisposable } from '../util/lifecycle';
import type { Log } from '../util/log';
import type { Agent, Gate, Goal, Todo, TodoStatus } from '../../kernel/model';
import type { SqliteDb } from '../../kernel/db/sqliteDb';
import { readyTodoIds, todosInClaimOrder, findTodo } from '../../kernel/todos/todoQueries';
import { type StatusReport, statusReport } from '../../kernel/readModels/status';
import { type CacheFigures, cacheFigures } from '../../kernel/readModels/cacheFigures';
import { iso } from '../../kernel/time';
import { type Evidence, listEvidence } from '../../kernel/evidence/evidenceQueries';
import { type Monitor, listMonitors } from '../../kernel/monitors/monitorQueries';
import { type RunnerSeen, recentRunners, listAgents } from '../../kernel/turns/runners';
import { countTurns } from '../../kernel/turns/turnQueries';
import { listGates } from '../../kernel/gates/gateQueries';
import { listGoals } from '../../kernel/goals/goalQueries';
import { listWorktreeRows } from '../../kernel/worktrees/worktreeRows';
import type { CardChange } from '../../protocol/boardProtocol';
import { BranchChanges } from '../worktrees/branchChanges';
import { TeamReach } from './teamReach';
import { registerQuietly } from '../../kernel/projects/projectRegistry';
import { kernelStoreId } from '../../kernel/projects/storeIdentity';

export const CONTEXT_HAS_STORE = 'loopx.hasStore';
export const CONTEXT_OPEN_FAILED = 'loopx.openFailed';
/** A team store's server does not answer and the person has not chosen to see the last state (the welcome's buttons). */
export const CONTEXT_TEAM_UNREACHABLE = 'loopx.teamUnreachable';
/** How long a changed team pointer must stay still before the window opens the store again. */
const REOPEN_SETTLE_MS = 300;

/** Why the store could not be opened, for the welcome view and a clear message (never a stack trace). */
export interface OpenFailure {
  message: string;
  hint?: string;
}

/**
 * The extension's one connection to the workspace store. It opens the kernel when `.loopx/` exists, watches
 * for changes made by other processes (agents using the CLI) and tells listeners, debounced, without polling.
 */
export class StoreSession extends Disposable {
  private readonly open = this.register(new MutableDisposable<{ kernel: Kernel; dispose(): void }>());
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  /** Fires after any change to the store: ours (after commit) or another process's. */
  readonly onDidChange = this.changed.event;
  private readonly openState = this.register(new vscode.EventEmitter<void>());
  /** Fires when the store opens or fails to open (the window's context keys sum this over every folder). */
  readonly onDidChangeOpenState = this.openState.event;
  private failure: OpenFailure | undefined;
  private statusTimer: NodeJS.Timeout | undefined;
  private reopenTimer: NodeJS.Timeout | undefined;
  /** A team store whose server stops answering: what the views say, the last state on request, recovery (teamReach.ts). */
  readonly reach = new TeamReach(
    () => this.kernel,
    () => {
      const unreachable = this.reach.unreachable;
      if (unreachable) this.log.warn(`team store unreachable (team_unreachable): ${unreachable.detail}`);
      else this.log.info('team store reachable again');
      this.openState.fire();
      this.changed.fire();
    },
  );

  constructor(
    readonly root: string,
    readonly actor: Actor,
    private readonly log: Log,
  ) {
    super();
    // The store may appear later (loopx init in a terminal): watch for it.
    const pattern = new vscode.RelativePattern(vscode.Uri.file(root), '.loopx/loopx.db');
    const appear = this.register(vscode.workspace.createFileSystemWatcher(pattern, false, true, true));
    this.register(appear.onDidCreate(() => this.tryOpen()));
    // A team pointer written or removed (`loopx team push`, `join` or `leave` in a terminal) moves the store: the window
    // follows it rather than go on with a store that is no longer this workspace's.
    const pointer = new vscode.RelativePattern(vscode.Uri.file(root), '.loopx/team.json');
    const moved = this.register(vscode.workspace.createFileSystemWatcher(pointer));
    const follow = () => this.reopenSoon('its team pointer changed');
    this.register(moved.onDidCreate(follow));
    this.register(moved.onDidChange(follow));
    this.register(moved.onDidDelete(follow));
    this.register(toDisposable(() => this.statusTimer && clearTimeout(this.statusTimer)));
    this.register(toDisposable(() => this.reopenTimer && clearTimeout(this.reopenTimer)));
    this.register(toDisposable(() => this.reach.dispose()));
  }

  get kernel(): Kernel | undefined {
    return this.open.value?.kernel;
  }

  get lastFailure(): OpenFailure | undefined {
    return this.failure;
  }

  /** The open kernel, or an error the command layer shows as a message. */
  requireKernel(): Kernel {
    const kernel = this.kernel;
    if (kernel) return kernel;
    throw new LoopxError(
      'no_store',
      this.failure?.message ?? 'this workspace has no .loopx/ store yet',
      EXIT.noStore,
      this.failure?.hint ?? 'run "LoopX: Initialize" to create one',
    );
  }

  /** Opens the store if it exists. Returns true when a kernel is open afterwards. */
  tryOpen(): boolean {
    if (this.kernel) return true;
    if (!Kernel.hasStore(this.root)) {
      this.openState.fire();
      return false;
    }
    try {
      this.attach(Kernel.open(this.root, { actor: this.actor }));
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
  }

  /**
   * Closes the store and opens it again, wherever it now is: the team pointer or the team store setting changed. What
   * was said of the old store (unreachable, an open failure) goes with it. Returns true when a kernel is open afterwards.
   */
  reopen(why: string): boolean {
    if (this.reopenTimer) clearTimeout(this.reopenTimer);
    this.reopenTimer = undefined;
    this.log.info(`opening the store again: ${why}`);
    this.open.value = undefined;
    this.reach.reset();
    this.failure = undefined;
    this.changed.fire();
    return this.tryOpen();
  }

  /**
   * A write refused because this folder's store was moved into a team store (`store_moved`: a push ran under it): the
   * window opens the team store now rather than wait for the pointer's watcher, so the person's Retry goes there.
   */
  followMove(error: unknown): void {
    if (error instanceof LoopxError && error.code === 'store_moved') this.reopen('its store was moved into a team store');
  }

  /** A pointer is written in a few steps (created, then written): one reopen once they settle. */
  private reopenSoon(why: string): void {
    if (this.reopenTimer) clearTimeout(this.reopenTimer);
    this.reopenTimer = setTimeout(() => this.reopen(why), REOPEN_SETTLE_MS);
  }

  /** Creates `.loopx/` (reusing an existing store), keeps it out of git as the CLI's init does, and opens it. */
  initialize(): { created: boolean; gitignore: GitignoreResult } {
    const { kernel, created } = Kernel.init(this.root, { actor: this.actor });
    this.attach(kernel);
    writeStatusMd(kernel);
    return { created, gitignore: ensureGitignore(this.root) };
  }

  /** Takes a kernel opened elsewhere (a team store's, until Kernel.open opens those itself). */
  adopt(kernel: Kernel): void {
    this.attach(kernel);
  }

  private attach(kernel: Kernel): void {
    const started = Date.now();
    const watcher = new StoreWatcher(kernel.engine.changeSignal(), () => {
      this.fire('another process');
      this.scheduleStatusMd(); // agents' CLI writes only mark STATUS.md out of date
    }).start();
    const unlisten = kernel.onCommit((events) => {
      watcher.acknowledge(events[events.length - 1]);
      this.fire('this window');
      this.scheduleStatusMd();
    });
    this.failure = undefined;
    this.open.value = {
      kernel,
      dispose: () => {
        unlisten();
        watcher.stop();
        kernel.close();
      },
    };
    this.log.info(`opened ${kernel.storeDir} (driver ${kernel.db.driver}, schema ${kernel.schemaVersion}) in ${Date.now() - started} ms`);
    // Listed among the person's projects (loopx projects, the Projects view); a list it cannot write is only logged.
    const notListed = registerQuietly(this.root, 'vscode', kernelStoreId(kernel));
    if (notListed) this.log.warn(`this folder is not listed among your projects: ${notListed}`);
    this.openState.fire();
    this.changed.fire();
  }

  private fire(source: string): void {
    this.log.trace(`store changed (${source})`);
    this.changed.fire();
  }

  /** STATUS.md is a projection: regenerated after our own writes and other processes' (debounced). */
  private scheduleStatusMd(): void {
    if (this.statusTimer) clearTimeout(this.statusTimer);
    this.statusTimer = setTimeout(() => {
      const kernel = this.kernel;
      if (!kernel) return;
      try {
        writeStatusMd(kernel);
      } catch (error) {
        this.log.warn(`could not refresh STATUS.md: ${(error as Error).message}`);
      }
    }, 500);
  }

  private fail(thrown: unknown): void {
    const { body, typed } = describeError(thrown, 'person');
    // Opening trouble is fixed in a terminal (doctor, restore): the error's own hint stays, commands and all.
    const ownWords = typed !== undefined && body.message === typed.message;
    this.failure = { message: body.message, hint: (ownWords ? typed.hint : body.hint) ?? undefined };
    this.log.error('could not open the loopx store', thrown);
    this.openState.fire();
    const text = `LoopX could not open ${this.root}/.loopx: ${this.failure.message}${this.failure.hint ? ` (${this.failure.hint})` : ''}`;
    void vscode.window.showErrorMessage(text, 'Show Logs').then((choice) => choice && this.log.show());
  }
}

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
    // git's answers arrive after the reading that asked (it never waits on git): the views then ask again.
    this.branches = new BranchChanges(onBranchError, () => this.invalidate());
    this.register(session.onDidChange(() => this.invalidate()));
  }

  get ready(): boolean {
    return this.session.kernel !== undefined;
  }

  /** What the views say while a team store cannot be reached (its last state possibly shown); undefined otherwise. */
  get unreachableSentence(): string | undefined {
    return this.session.reach.sentence();
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
    const value = this.session.reach.read(compute, fallback);
    this.cache.set(key, value);
    return value;
  }

  status(): StatusReport | undefined {
    return this.cached('status', (db, now) => statusReport(db, now), undefined);
  }

  /** What the prompt cache read and saved for a goal's turns in its budget window (the status bar's tooltip). */
  cacheFigures(goalId: string, windowHours: number): CacheFigures | undefined {
    return this.cached(
      `cache:${goalId}:${windowHours}`,
      (db, now) => cacheFigures(db, goalId, iso(now - windowHours * 3600_000)),
      undefined,
    );
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
   * outside it and off the extension host's thread, through BranchChanges (what `todo show` prints; git is not asked
   * on every store change). What git has not answered yet is missing until it has (onDidChange fires then).
   */
  changes(): Map<string, CardChange> {
    const kernel = this.session.kernel;
    if (!kernel) return new Map();
    const cached = this.cache.get('changes') as Map<string, CardChange> | undefined;
    if (cached) return cached;
    const rows = this.session.reach.read((db) => listWorktreeRows(db), []);
    const value = rows.length ? this.branches.read(kernel.root, rows) : new Map<string, CardChange>();
    this.cache.set('changes', value);
    return value;
  }

  /** Resolves when git has answered every branch reading under way (tests; a view that must show fresh facts). */
  changesSettled(): Promise<void> {
    return this.branches.settled();
  }
}

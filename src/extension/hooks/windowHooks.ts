import * as vscode from 'vscode';
import { HookDispatcher, type HookRunReport } from '../../kernel/hooks/dispatch';
import { candidateRows, occasionOf, type HookOccasion } from '../../kernel/hooks/triggers';
import type { Kernel } from '../../kernel/kernel';
import { logHead } from '../../kernel/events/anchor';
import { oneLine } from '../../protocol/display';
import { Disposable } from '../util/lifecycle';
import type { Log } from '../util/log';
import type { StoreModel, StoreSession } from '../store/storeModel';
import { COMMANDS } from '../commands/commandIds';
import { inFolder } from '../commands/inFolder';
import { loopxSetting } from '../loopxSettings';

/**
 * While a window is open it runs the hooks a person set for the events it sees first (a claim per hook and event in
 * the store: another window or a runner that got there first runs it instead, never both). Hooks run commands from
 * the workspace, so only in a trusted workspace, and only with `loopx.hooks.run` on. Looking costs one read when
 * nothing new happened; a hook that hangs never holds the window (it runs in the background, killed at its limit).
 */
export class WindowHooks extends Disposable {
  private dispatcher: { kernel: Kernel; d: HookDispatcher } | undefined;
  /** Hook runs this window did (tests and the log read them). */
  readonly runs: HookRunReport[] = [];

  constructor(
    private readonly session: StoreSession,
    model: StoreModel,
    private readonly log: Log,
    private readonly isTrusted: () => boolean = () => vscode.workspace.isTrusted,
  ) {
    super();
    this.register(model.onDidChange(() => this.poke()));
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.poke()));
    this.register({ dispose: () => (this.dispatcher = undefined) });
    this.poke();
  }

  get enabled(): boolean {
    return this.isTrusted() && (loopxSetting<boolean>('loopx.hooks.run') ?? true);
  }

  poke(): void {
    const kernel = this.session.kernel;
    if (!kernel || !this.enabled) return;
    if (this.dispatcher?.kernel !== kernel) {
      const d = new HookDispatcher(kernel, {
        by: `VS Code window (pid ${process.pid})`,
        onRun: (r) => {
          this.runs.push(r);
          const outcome = r.error ?? (r.exitCode === 0 ? 'ran' : `exit ${r.exitCode}`);
          (r.error || r.exitCode !== 0 ? this.log.warn : this.log.info).call(
            this.log,
            `hook ${r.hookId} for ${r.subject} (${r.trigger}): ${outcome} in ${r.durationMs} ms`,
          );
        },
        onError: (error) => this.log.error('hooks: could not look for events', error),
      });
      this.dispatcher = { kernel, d };
    }
    this.dispatcher.d.poke();
  }

  /** Waits for the hooks this window started (tests). */
  settle(): Promise<void> {
    return this.dispatcher?.d.settle() ?? Promise.resolve();
  }
}

/** The events a window tells the person about itself; gates and monitors have their own notifiers. */
const TOLD = new Set(['todo.blocked', 'turn.failed', 'budget.spent', 'runner.stopped']);

/**
 * The same events hooks run for, as notifications while a window is open (setting loopx.notifyOnEvents): a todo
 * blocked, a failed turn, a spent budget, a runner that stopped. Only what happens while the window is open: what
 * happened before is in the views and the story, not a burst of notifications.
 */
export class EventNotifier extends Disposable {
  private after: number | undefined;
  /** "todo.blocked T5", in order (tests read it). */
  readonly notified: string[] = [];

  constructor(
    private readonly session: StoreSession,
    model: StoreModel,
    private readonly root: string,
  ) {
    super();
    this.register(model.onDidChange(() => this.check()));
    this.check();
  }

  private check(): void {
    const kernel = this.session.kernel;
    if (!kernel) return;
    const found = kernel.read((db) => {
      if (this.after === undefined) return { head: logHead(db)?.seq ?? 0, news: [] as HookOccasion[] };
      const rows = candidateRows(db, this.after, 200);
      const news = rows.map((r) => occasionOf(db, r)).filter((o): o is HookOccasion => o !== null && TOLD.has(o.trigger));
      return { head: rows.length ? Number(rows[rows.length - 1]?.seq) : this.after, news };
    });
    this.after = Math.max(this.after ?? 0, found.head);
    const enabled = loopxSetting<boolean>('loopx.notifyOnEvents') ?? true;
    for (const o of found.news) {
      this.notified.push(`${o.trigger} ${o.subject}`);
      if (enabled) this.tell(o);
    }
  }

  private tell(o: HookOccasion): void {
    const text = `${o.title}: ${oneLine(o.summary, 240)}`;
    const buttons: [string, () => Thenable<unknown>][] =
      o.trigger === 'todo.blocked'
        ? [
            ['Unblock…', () => vscode.commands.executeCommand(COMMANDS.unblockTodo, inFolder(this.root, o.subject))],
            ['Show on Board', () => vscode.commands.executeCommand(COMMANDS.openOnBoard, inFolder(this.root, o.subject))],
          ]
        : o.trigger === 'budget.spent'
          ? [['Show Budgets', () => vscode.commands.executeCommand(COMMANDS.showQuota)]]
          : o.trigger === 'turn.failed'
            ? [
                [
                  'Open Story',
                  () => vscode.commands.executeCommand(COMMANDS.openStory, ...(o.goalId ? [inFolder(this.root, o.goalId)] : [])),
                ],
              ]
            : [];
    const show = o.trigger === 'runner.stopped' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    void show(text, ...buttons.map(([b]) => b)).then((choice) => buttons.find(([b]) => b === choice)?.[1]());
  }
}

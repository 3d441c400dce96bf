import * as vscode from 'vscode';
import { clean, forPeople, oneLine } from '../../protocol/display';
import { Disposable } from '../util/lifecycle';
import type { StoreModel } from '../store/storeModel';
import { COMMANDS } from '../commands/commandIds';
import { loopxSetting } from '../loopxSettings';

/**
 * A monitor that stops waiting because it fired or expired raises a notification (once; setting
 * loopx.notifyOnMonitors): its todo is ready again, with the result in its continuation. Auto-run, when on, picks
 * the todo up by itself; the notification is for the person following along. Whoever ran the check (this window,
 * cron, a runner) does not matter: the notification follows the store.
 */
export class MonitorNotifier extends Disposable {
  private waiting: Set<string> | undefined;
  /** Checks agents set that wait for a person, already announced (each once per window). */
  private readonly asked = new Set<string>();
  /** "M2 fired", "M3 expired", in order (tests read it). */
  readonly notified: string[] = [];

  constructor(private readonly model: StoreModel) {
    super();
    this.register(model.onDidChange(() => this.check()));
    this.check();
  }

  private check(): void {
    if (!this.model.ready) return;
    const monitors = this.model.monitors();
    const nowWaiting = new Set(monitors.filter((m) => m.status === 'waiting').map((m) => m.id));
    const before = this.waiting;
    this.waiting = nowWaiting;
    // Monitors that ended before the window opened are history, not news.
    if (before === undefined) {
      for (const m of monitors) if (m.approval === 'pending') this.asked.add(m.id);
      return;
    }
    const enabled = loopxSetting<boolean>('loopx.notifyOnMonitors') ?? true;
    // A check an agent set waits for a person: say so once, with the command, and a way to decide.
    for (const m of monitors) {
      if (m.status !== 'waiting' || m.approval !== 'pending' || this.asked.has(m.id)) continue;
      this.asked.add(m.id);
      this.notified.push(`${m.id} waits for approval`);
      if (!enabled) continue;
      const text = `LoopX: ${m.addedBy} set a check for ${m.todoId} that waits for you before loopx runs it: ${oneLine(m.check, 160)}`;
      void vscode.window.showWarningMessage(text, 'Allow…').then((choice) => {
        if (choice) void vscode.commands.executeCommand(COMMANDS.approveMonitor, m.id);
      });
    }
    for (const m of monitors) {
      if (!before.has(m.id) || nowWaiting.has(m.id) || (m.status !== 'fired' && m.status !== 'expired')) continue;
      this.notified.push(`${m.id} ${m.status}`);
      if (!enabled) continue;
      const title = clean(this.model.todo(m.todoId)?.title ?? '');
      const text = `LoopX: monitor ${m.id} ${m.status} · ${m.todoId} ${oneLine(title, 60)} is ready again: ${oneLine(forPeople(m.result, Date.now()), 200)}`;
      const show = (choice: string | undefined) =>
        choice === 'Show on Board' ? vscode.commands.executeCommand(COMMANDS.openBoard) : undefined;
      if (m.status === 'fired') void vscode.window.showInformationMessage(text, 'Show on Board').then(show);
      else void vscode.window.showWarningMessage(text, 'Show on Board').then(show);
    }
  }
}

import * as vscode from 'vscode';
import type { GoalStatusLine } from '../kernel/queries/status';
import { clean, clockTime } from '../protocol/display';
import { Disposable, toDisposable } from './util/lifecycle';
import type { StoreModel } from './store/storeModel';
import { COMMANDS } from './commands/commandIds';

/**
 * A quota meter per active goal (spent/allowed, next wake) that turns to the warning colour when the budget is
 * exhausted, and a pending-gate badge. Updated from the model; a timer only re-renders times.
 */
export class QuotaStatusBar extends Disposable {
  private readonly goals = new Map<string, vscode.StatusBarItem>();
  private readonly gates = this.register(vscode.window.createStatusBarItem('loopx.gates', vscode.StatusBarAlignment.Left, 99));

  constructor(private readonly model: StoreModel) {
    super();
    this.gates.name = 'LoopX Gates';
    this.gates.command = 'loopx.gates.focus';
    this.register(model.onDidChange(() => this.render()));
    this.register(toDisposable(() => this.goals.forEach((item) => item.dispose())));
    this.render();
  }

  render(): void {
    const report = this.model.status();
    const active = (report?.goals ?? []).filter((g) => g.status === 'active');
    for (const [id, item] of this.goals) {
      if (!active.some((g) => g.id === id)) {
        item.dispose();
        this.goals.delete(id);
      }
    }
    active.forEach((goal, index) => this.renderGoal(goal, index));
    const pending = report?.pendingGates.length ?? 0;
    if (pending > 0) {
      this.gates.text = `$(bell-dot) ${pending} gate${pending === 1 ? '' : 's'}`;
      this.gates.tooltip = `LoopX: ${pending} gate${pending === 1 ? '' : 's'} waiting for your decision`;
      this.gates.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
      this.gates.accessibilityInformation = { label: `LoopX: ${pending} pending gates` };
      this.gates.show();
    } else this.gates.hide();
  }

  private renderGoal(goal: GoalStatusLine, index: number): void {
    let item = this.goals.get(goal.id);
    if (!item) {
      item = vscode.window.createStatusBarItem(`loopx.quota.${goal.id}`, vscode.StatusBarAlignment.Left, 100 - index / 100);
      item.name = `LoopX quota ${goal.id}`;
      item.command = COMMANDS.showQuota;
      this.goals.set(goal.id, item);
    }
    const now = Date.now();
    const q = goal.quota;
    const answer = goal.shouldRun;
    // The wake time already counts the next monitor check (should-run's nextWakeAt does); the eye says so.
    const waiting = this.model.monitors().filter((m) => m.status === 'waiting' && m.goalId === goal.id);
    const nextCheck = waiting.map((m) => m.nextCheckAt).filter((t): t is string => t !== null).sort()[0];
    const moments = waiting.flatMap((m) => [m.nextCheckAt, m.expiresAt]).filter((t): t is string => t !== null);
    const byMonitor = !answer.run && answer.nextWakeAt !== null && moments.includes(answer.nextWakeAt);
    const wake = !answer.run && answer.nextWakeAt ? ` · ${byMonitor ? '$(eye) ' : ''}wake ${clockTime(answer.nextWakeAt, now)}` : '';
    // Exhausted is about the budget, whatever else should-run reports first (no ready work, a gate…).
    const exhausted = q.remaining === 0;
    item.text = `${exhausted ? '$(warning)' : '$(pulse)'} ${goal.id} ${q.spent}/${q.turnsPerWindow}${wake}`;
    item.backgroundColor = exhausted ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**${goal.id}** `).appendText(clean(goal.title)).appendMarkdown('\n\n');
    md.appendMarkdown(`$(dashboard) ${q.spent} of ${q.turnsPerWindow} turns spent in the last ${q.windowHours} h, ${q.remaining} left\n\n`);
    md.appendMarkdown(answer.run ? '$(play) should run: **yes**' : `$(debug-pause) should run: **no** (${answer.reason})`);
    if (answer.nextWakeAt) md.appendMarkdown(`, next wake ${clockTime(answer.nextWakeAt, now)}`);
    else if (!answer.run) md.appendMarkdown(', waits for a human');
    md.appendMarkdown('\n\n');
    if (goal.nextTodo) md.appendMarkdown(`$(arrow-right) next: ${goal.nextTodo.id} `).appendText(clean(goal.nextTodo.title));
    if (waiting.length) {
      md.appendMarkdown(`\n\n$(eye) ${waiting.length} monitor${waiting.length === 1 ? '' : 's'} waiting`);
      if (nextCheck) md.appendMarkdown(`, next check ${clockTime(nextCheck, now)}`);
    }
    item.tooltip = md;
    item.accessibilityInformation = { label: `LoopX ${goal.id}: ${q.spent} of ${q.turnsPerWindow} turns spent; should run ${answer.run ? 'yes' : `no, ${answer.reason}`}` };
    item.show();
  }

  /** For tests: what each goal's item shows. */
  snapshot(): { id: string; text: string; warning: boolean }[] {
    return [...this.goals].map(([id, item]) => ({ id, text: item.text, warning: item.backgroundColor !== undefined }));
  }

  gateBadge(): string | undefined {
    return this.gates.text && this.model.status()?.pendingGates.length ? this.gates.text : undefined;
  }
}

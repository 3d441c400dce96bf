import * as vscode from 'vscode';
import type { GoalStatusLine } from '../kernel/queries/status';
import { clean, clockTime } from '../protocol/display';
import { shouldRunReason } from '../protocol/shouldRunWords';
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
      this.gates.accessibilityInformation = { label: `LoopX: ${pending} gate${pending === 1 ? '' : 's'} waiting for your decision` };
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
    const wake = !answer.run && answer.nextWakeAt ? ` · wake ${clockTime(answer.nextWakeAt, now)}` : '';
    // Exhausted is about the budget, whatever else should-run reports first (no ready work, a gate…).
    const exhausted = q.remaining === 0;
    item.text = `${exhausted ? '$(warning)' : '$(pulse)'} ${goal.id} ${q.spent}/${q.turnsPerWindow}${wake}`;
    item.backgroundColor = exhausted ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**${goal.id}** `).appendText(clean(goal.title)).appendMarkdown('\n\n');
    md.appendMarkdown(`$(dashboard) ${q.spent} of ${q.turnsPerWindow} turns spent in the last ${q.windowHours} h, ${q.remaining} left\n\n`);
    const why = shouldRunReason({ ...answer, goalStatus: goal.status, ...q });
    md.appendMarkdown(answer.run ? '$(play) **Ready to run a turn**' : '$(debug-pause) **Waits:** ').appendText(answer.run ? '' : why);
    if (answer.nextWakeAt) md.appendMarkdown(`; it can run again at ${clockTime(answer.nextWakeAt, now)}`);
    else if (!answer.run) md.appendMarkdown('; a person has to act first');
    md.appendMarkdown(`\n\n<small>should-run: \`${answer.reason}\`</small>\n\n`);
    if (goal.nextTodo) md.appendMarkdown(`$(arrow-right) next: ${goal.nextTodo.id} `).appendText(clean(goal.nextTodo.title));
    item.tooltip = md;
    item.accessibilityInformation = { label: `LoopX ${goal.id}: ${q.spent} of ${q.turnsPerWindow} turns spent; ${answer.run ? 'ready to run a turn' : `waits: ${why}`}` };
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

import * as vscode from 'vscode';
import type { GoalStatusLine } from '../kernel/readModels/status';
import { clean, clockTime } from '../protocol/display';
import { allShipped, shouldRunReason } from '../protocol/shouldRunWords';
import { pausedWords } from '../shared/pausedWords';
import { Disposable, toDisposable } from './util/lifecycle';
import type { Folders } from './folders';
import type { FolderServices } from './folderServices';
import { inFolder } from './commands/inFolder';
import { COMMANDS } from './commands/commandIds';
import { budgetWords, cacheWords, dollars, meterMoney } from '../shared/usageWords';

/**
 * A quota meter per active goal (spent/allowed, next wake) that turns to the warning colour when the budget is
 * exhausted, and a pending-gate badge that sums every folder. In a multi-root workspace each meter names its folder.
 * Updated from the models; a timer only re-renders times.
 */
export class QuotaStatusBar extends Disposable {
  private readonly goals = new Map<string, vscode.StatusBarItem>();
  private readonly gates = this.register(vscode.window.createStatusBarItem('loopx.gates', vscode.StatusBarAlignment.Left, 99));
  /** Goals that wait for a person to start them (or, when nothing is active, every paused goal): never a blank bar. */
  private readonly paused = this.register(vscode.window.createStatusBarItem('loopx.paused', vscode.StatusBarAlignment.Left, 98));
  private readonly watched = new Set<FolderServices>();

  constructor(private readonly folders: Folders) {
    super();
    this.gates.name = 'LoopX Gates';
    this.paused.name = 'LoopX Paused Goals';
    this.gates.command = 'loopx.gates.focus';
    this.register(folders.onDidChange(() => this.follow()));
    this.register(toDisposable(() => this.goals.forEach((item) => item.dispose())));
    this.follow();
  }

  private follow(): void {
    for (const f of this.folders.all) {
      if (this.watched.has(f)) continue;
      this.watched.add(f);
      this.register(f.model.onDidChange(() => this.render()));
    }
    this.render();
  }

  render(): void {
    const grouped = this.folders.grouped;
    const active = this.folders.withStore.flatMap((folder) =>
      (folder.model.status()?.goals ?? [])
        .filter((g) => g.status === 'active')
        .map((goal) => ({ key: `${folder.root}#${goal.id}`, goal, owner: folder, folder: grouped ? folder.name : undefined })),
    );
    for (const [key, item] of this.goals) {
      if (!active.some((a) => a.key === key)) {
        item.dispose();
        this.goals.delete(key);
      }
    }
    active.forEach((a, index) => this.renderGoal(a.key, a.goal, a.owner, index, a.folder));
    const pending = this.folders.withStore.reduce((n, f) => n + (f.model.status()?.pendingGates.length ?? 0), 0);
    if (pending > 0) {
      this.gates.text = `$(bell-dot) ${pending} gate${pending === 1 ? '' : 's'}`;
      this.gates.tooltip = `LoopX: ${pending} gate${pending === 1 ? '' : 's'} waiting for your decision`;
      this.gates.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
      this.gates.accessibilityInformation = { label: `LoopX: ${pending} gate${pending === 1 ? '' : 's'} waiting for your decision` };
      this.gates.show();
    } else this.gates.hide();
    this.renderPaused(active.length);
  }

  private renderPaused(activeCount: number): void {
    const grouped = this.folders.grouped;
    const paused = this.folders.withStore.flatMap((folder) =>
      (folder.model.status()?.goals ?? [])
        .filter((g) => g.status === 'paused' && (g.waitsForPerson || activeCount === 0))
        .map((goal) => ({ goal, folder })),
    );
    if (!paused.length) {
      this.paused.hide();
      this.pausedShown = undefined;
      return;
    }
    const [only] = paused;
    const label = paused.length === 1 && only ? `${only.goal.id} paused` : `${paused.length} goals paused`;
    this.paused.text = `$(debug-pause) ${label}`;
    this.paused.command =
      paused.length === 1 && only
        ? { title: 'Resume Goal', command: COMMANDS.resumeGoal, arguments: [inFolder(only.folder.root, only.goal.id)] }
        : COMMANDS.resumeGoal;
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown('**LoopX: paused goals** (click to start one)\n\n');
    for (const { goal, folder } of paused)
      md.appendMarkdown(`$(debug-pause) **${goal.id}** `)
        .appendText(`${clean(goal.title)}${grouped ? ` (${folder.name})` : ''}: ${pausedWords(goal.waitsForPerson)}`)
        .appendMarkdown('\n\n');
    this.paused.tooltip = md;
    this.paused.accessibilityInformation = { label: `LoopX: ${label}; click to start ${paused.length === 1 ? 'it' : 'one'}` };
    this.paused.show();
    this.pausedShown = this.paused.text;
  }

  private pausedShown: string | undefined;

  /** For tests: what the paused-goals item shows, or undefined when it is hidden. */
  pausedBadge(): string | undefined {
    return this.pausedShown;
  }

  private renderGoal(key: string, goal: GoalStatusLine, owner: FolderServices, index: number, folder: string | undefined): void {
    let item = this.goals.get(key);
    if (!item) {
      item = vscode.window.createStatusBarItem(`loopx.quota.${key}`, vscode.StatusBarAlignment.Left, 100 - index / 100);
      item.name = `LoopX quota ${folder ? `${folder} ` : ''}${goal.id}`;
      this.goals.set(key, item);
    }
    item.command = { title: 'Show Budgets', command: COMMANDS.showQuota, arguments: [inFolder(owner.root)] };
    const now = Date.now();
    const q = goal.quota;
    const answer = goal.shouldRun;
    // The wake time already counts the next monitor check (should-run's nextWakeAt does); the eye says so.
    const waiting = owner.model.monitors().filter((m) => m.status === 'waiting' && m.goalId === goal.id);
    const nextCheck = waiting
      .map((m) => m.nextCheckAt)
      .filter((t): t is string => t !== null)
      .sort()[0];
    const moments = waiting.flatMap((m) => [m.nextCheckAt, m.expiresAt]).filter((t): t is string => t !== null);
    const byMonitor = !answer.run && answer.nextWakeAt !== null && moments.includes(answer.nextWakeAt);
    // When the goal can take its next turn (should-run's wake time), in words: "next turn 16:48".
    const wake = !answer.run && answer.nextWakeAt ? ` · ${byMonitor ? '$(eye) ' : ''}next turn ${clockTime(answer.nextWakeAt, now)}` : '';
    // Exhausted is about the budget, whatever else should-run reports first (no ready work, a gate…).
    const exhausted = q.remaining === 0 || answer.budget === 'dollars' || answer.budget === 'tokens';
    // Money shows once there is any: what people pay for is on the meter, its cap when the goal has one.
    const u = q.usage;
    const money = meterMoney(u);
    // Every todo shipped: the goal is finished in all but name, and the meter says so (its tooltip offers Mark Done).
    const finished = allShipped(goal.counts);
    const lead = finished ? '$(pass-filled)' : exhausted ? '$(warning)' : '$(pulse)';
    item.text = `${lead} ${folder ? `${folder}: ` : ''}${goal.id} ${q.spent}/${q.turnsPerWindow}${money}${finished ? ' · all shipped' : wake}`;
    item.backgroundColor = exhausted ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: [COMMANDS.markGoalDone] };
    md.appendMarkdown(`**${goal.id}** `)
      .appendText(clean(goal.title))
      .appendText(folder ? ` (${folder})` : '')
      .appendMarkdown('\n\n');
    md.appendMarkdown(`$(dashboard) ${q.spent} of ${q.turnsPerWindow} turns spent in the last ${q.windowHours} h, ${q.remaining} left\n\n`);
    if (u.tokens > 0 || u.dollarsPerWindow !== null || u.tokensPerWindow !== null) {
      md.appendMarkdown('$(credit-card) ').appendText(`Used ${budgetWords(u)} in the last ${q.windowHours} h`);
      if (u.perTurn?.dollars) md.appendText(`; a turn costs about ${dollars(u.perTurn.dollars)}`);
      const cache = owner.model.cacheFigures(goal.id, q.windowHours);
      const cached = cache ? cacheWords(cache) : null;
      if (cached) md.appendText(`; ${cached}`);
      md.appendMarkdown('\n\n');
    }
    const why = shouldRunReason({ ...answer, goalStatus: goal.status, ...q, counts: goal.counts, me: owner.ctx.me });
    md.appendMarkdown(answer.run ? '$(play) **Ready to run a turn**' : '$(debug-pause) **Waits:** ').appendText(answer.run ? '' : why);
    if (answer.nextWakeAt) md.appendMarkdown(`; it can run again at ${clockTime(answer.nextWakeAt, now)}`);
    else if (finished) {
      const args = encodeURIComponent(JSON.stringify([inFolder(owner.root, goal.id)]));
      md.appendMarkdown(`: [Mark ${goal.id} done](command:${COMMANDS.markGoalDone}?${args}) or add todos`);
    } else if (!answer.run) md.appendMarkdown('; a person has to act first');
    md.appendMarkdown('\n\n');
    if (goal.nextTodo) md.appendMarkdown(`$(arrow-right) next: ${goal.nextTodo.id} `).appendText(clean(goal.nextTodo.title));
    if (waiting.length) {
      md.appendMarkdown(`\n\n$(eye) ${waiting.length} monitor${waiting.length === 1 ? '' : 's'} waiting`);
      if (nextCheck) md.appendMarkdown(`, next check ${clockTime(nextCheck, now)}`);
    }
    item.tooltip = md;
    item.accessibilityInformation = {
      label: `LoopX ${goal.id}: ${q.spent} of ${q.turnsPerWindow} turns spent; ${answer.run ? 'ready to run a turn' : `waits: ${why}`}`,
    };
    item.show();
  }

  /** For tests: what each goal's item shows. */
  snapshot(): { id: string; folder: string; text: string; warning: boolean; tooltip: string }[] {
    return [...this.goals].map(([key, item]) => {
      const at = key.lastIndexOf('#');
      const tooltip = typeof item.tooltip === 'string' ? item.tooltip : (item.tooltip?.value ?? '');
      return { id: key.slice(at + 1), folder: key.slice(0, at), text: item.text, warning: item.backgroundColor !== undefined, tooltip };
    });
  }

  gateBadge(): string | undefined {
    return this.gates.text && this.folders.withStore.some((f) => f.model.status()?.pendingGates.length) ? this.gates.text : undefined;
  }
}

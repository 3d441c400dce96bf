import * as vscode from 'vscode';
import type { Monitor } from '../../kernel/monitors/monitorQueries';
import { clean, forPeople, oneLine, relativeTime, untilWords } from '../../protocol/display';
import { formatDuration } from '../../kernel/time';
import { Disposable } from '../util/lifecycle';
import type { StoreModel } from '../store/storeModel';
import { CONTEXT } from './contextValues';

export type MonitorNode = { kind: 'monitor'; monitor: Monitor };

const ICONS: Record<Monitor['status'], [string, string]> = {
  waiting: ['eye', 'charts.blue'],
  fired: ['pass', 'charts.green'],
  expired: ['watch', 'charts.orange'],
  cancelled: ['circle-slash', 'disabledForeground'],
};

/**
 * What runs unattended: every waiting monitor (its command, next check, last result), each with an inline Cancel,
 * then the ones that ended recently. A check that cannot run is marked with a warning.
 */
export class MonitorsTreeProvider extends Disposable implements vscode.TreeDataProvider<MonitorNode> {
  private readonly changed = this.register(new vscode.EventEmitter<MonitorNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly model: StoreModel) {
    super();
    this.register(model.onDidChange(() => this.changed.fire(undefined)));
  }

  refreshTimes(): void {
    this.changed.fire(undefined);
  }

  waitingCount(): number {
    return this.model.monitors().filter((m) => m.status === 'waiting').length;
  }

  getChildren(node?: MonitorNode): MonitorNode[] {
    if (node) return [];
    return this.model.monitors().map((monitor) => ({ kind: 'monitor', monitor }));
  }

  getTreeItem({ monitor: m }: MonitorNode): vscode.TreeItem {
    const now = Date.now();
    const what = m.kind === 'timer' ? 'timer' : oneLine(m.check, 80);
    const item = new vscode.TreeItem(what, vscode.TreeItemCollapsibleState.None);
    item.id = `monitor:${m.id}`;
    const failing = m.status === 'waiting' && m.lastRun?.error;
    const when =
      m.status !== 'waiting'
        ? `${m.status} ${relativeTime(m.endedAt, now)}`
        : m.kind === 'timer'
          ? `fires ${relativeTime(m.nextCheckAt, now)}`
          : m.approval === 'pending'
            ? 'waits for you to allow its check'
            : `next check ${relativeTime(m.nextCheckAt, now)}`;
    const last = m.lastRun ? ` · last: ${m.lastRun.error ? oneLine(m.lastRun.error, 40) : `exit ${m.lastRun.exitCode}`}` : '';
    item.description = `${m.id} · ${m.todoId} · ${when}${last}`;
    const pending = m.status === 'waiting' && m.approval === 'pending';
    const [icon, color] = failing ? ['warning', 'charts.red'] : pending ? ['shield', 'charts.yellow'] : ICONS[m.status];
    item.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
    item.contextValue = CONTEXT.monitor(m.status, pending);
    const todo = this.model.todo(m.todoId);
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**Monitor ${m.id}** on ${m.todoId} `)
      .appendText(clean(todo?.title ?? ''))
      .appendMarkdown(` (${m.status})\n\n`);
    if (m.kind === 'check') {
      md.appendMarkdown('$(terminal) ')
        .appendText(clean(m.check))
        .appendMarkdown('\n\n')
        .appendText(`every ${formatDuration(m.everySeconds ?? 0)} until ${untilWords(clean(m.until))}`);
      if (m.expiresAt && m.status === 'waiting') md.appendMarkdown(`, expires ${relativeTime(m.expiresAt, now)}`);
      md.appendMarkdown('\n\n');
    }
    if (m.lastRun) {
      md.appendMarkdown(`$(history) run ${m.lastRun.n} ${relativeTime(m.lastRun.at, now)}: `)
        .appendText(m.lastRun.error ?? `exit ${m.lastRun.exitCode}`)
        .appendMarkdown('\n\n');
      if (m.lastRun.outputTail.trim()) md.appendCodeblock(m.lastRun.outputTail.trimEnd().split('\n').slice(-8).join('\n'), 'text');
    }
    if (m.result) md.appendMarkdown('\n\n**Result:** ').appendText(forPeople(m.result, now));
    if (m.note) md.appendMarkdown('\n\n**Note:** ').appendText(forPeople(m.note, now));
    md.appendMarkdown(`\n\nadded by `).appendText(clean(m.addedBy));
    if (pending)
      md.appendMarkdown(
        "\n\nAn agent set this check. loopx would run it unattended, outside the agent's sandbox, so it waits until you allow it (Allow Check…).",
      );
    else if (m.approval === 'pattern') md.appendMarkdown("\n\nallowed by the goal's pattern ").appendText(clean(m.approvedBy ?? ''));
    else if (m.approval === 'approved') md.appendMarkdown('\n\nallowed by ').appendText(clean(m.approvedBy ?? ''));
    item.tooltip = md;
    item.accessibilityInformation = { label: `Monitor ${m.id} on ${m.todoId}, ${m.status}: ${what}, ${when}${last}` };
    return item;
  }
}

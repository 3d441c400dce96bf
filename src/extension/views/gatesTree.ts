import * as vscode from 'vscode';
import type { Gate } from '../../kernel/model';
import { clean, oneLine, relativeTime } from '../../protocol/display';
import { Disposable } from '../util/lifecycle';
import type { StoreModel } from '../store/storeModel';
import { CONTEXT } from './contextValues';

export type GateNode = { kind: 'gate'; gate: Gate };

const ICONS: Record<Gate['status'], [string, string]> = {
  pending: ['question', 'charts.purple'],
  approved: ['check', 'charts.green'],
  rejected: ['close', 'charts.red'],
  cancelled: ['circle-slash', 'disabledForeground'],
};

/** Pending gates first, each showing its question; approve and reject sit inline on pending rows. */
export class GatesTreeProvider extends Disposable implements vscode.TreeDataProvider<GateNode> {
  private readonly changed = this.register(new vscode.EventEmitter<GateNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly model: StoreModel) {
    super();
    this.register(model.onDidChange(() => this.changed.fire(undefined)));
  }

  pendingCount(): number {
    return this.model.gates().filter((g) => g.status === 'pending').length;
  }

  getChildren(node?: GateNode): GateNode[] {
    if (node) return [];
    return this.model.gates().map((gate) => ({ kind: 'gate', gate }));
  }

  getTreeItem({ gate }: GateNode): vscode.TreeItem {
    const now = Date.now();
    const item = new vscode.TreeItem(oneLine(gate.question, 120), vscode.TreeItemCollapsibleState.None);
    item.id = `gate:${gate.id}`;
    const subject = gate.todoId ?? gate.goalId;
    const who = gate.decidedBy
      ? `${gate.status} by ${clean(gate.decidedBy)}`
      : `asked by ${clean(gate.askedBy)} ${relativeTime(gate.askedAt, now)}`;
    item.description = `${gate.id} · ${subject} · ${who}`;
    item.contextValue = CONTEXT.gate(gate.status);
    const [icon, color] = ICONS[gate.status];
    item.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**Gate ${gate.id}** on ${gate.todoId ? `todo ${gate.todoId}` : `goal ${gate.goalId}`} (${gate.status})\n\n`);
    md.appendText(clean(gate.question));
    md.appendMarkdown('\n\n').appendText(who);
    if (gate.note) md.appendMarkdown('\n\n**Note:** ').appendText(clean(gate.note));
    item.tooltip = md;
    item.accessibilityInformation = { label: `Gate ${gate.id}, ${gate.status}: ${oneLine(gate.question, 200)}` };
    return item;
  }
}

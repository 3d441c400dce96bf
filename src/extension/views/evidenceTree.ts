import * as vscode from 'vscode';
import type { Artifact } from '../../kernel/events/eventTypes';
import type { Evidence } from '../../kernel/queries/evidence';
import { clean, oneLine, relativeTime } from '../../protocol/display';
import { Disposable } from '../util/lifecycle';
import type { StoreModel } from '../store/storeModel';
import { COMMANDS } from '../commands/commandIds';
import { CONTEXT } from './contextValues';

export type EvidenceNode = { kind: 'evidence'; evidence: Evidence } | { kind: 'artifact'; artifact: Artifact; seq: number };

/** The evidence log, newest first, for the goal or todo selected in the Goals view (or everything). */
export class EvidenceTreeProvider extends Disposable implements vscode.TreeDataProvider<EvidenceNode> {
  private readonly changed = this.register(new vscode.EventEmitter<EvidenceNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private filter: { goalId?: string; todoId?: string } = {};

  constructor(
    private readonly model: StoreModel,
    private readonly root: string,
  ) {
    super();
    this.register(model.onDidChange(() => this.changed.fire(undefined)));
  }

  get scope(): string {
    return this.filter.todoId ? `todo ${this.filter.todoId}` : this.filter.goalId ? `goal ${this.filter.goalId}` : 'all goals';
  }

  setFilter(filter: { goalId?: string; todoId?: string }): void {
    if (filter.goalId === this.filter.goalId && filter.todoId === this.filter.todoId) return;
    this.filter = filter;
    this.changed.fire(undefined);
  }

  getChildren(node?: EvidenceNode): EvidenceNode[] {
    if (!node) return this.model.evidence(this.filter).map((evidence) => ({ kind: 'evidence', evidence }));
    if (node.kind === 'evidence') return node.evidence.artifacts.map((artifact) => ({ kind: 'artifact', artifact, seq: node.evidence.seq }));
    return [];
  }

  getTreeItem(node: EvidenceNode): vscode.TreeItem {
    if (node.kind === 'artifact') {
      const a = node.artifact;
      const uri = vscode.Uri.joinPath(vscode.Uri.file(this.root), ...a.path.split('/'));
      const item = new vscode.TreeItem(clean(a.path), vscode.TreeItemCollapsibleState.None);
      item.id = `artifact:${node.seq}:${a.path}`;
      item.resourceUri = uri;
      item.description = `sha256 ${a.sha256.slice(0, 12)}… · ${a.bytes} B`;
      item.contextValue = CONTEXT.artifact;
      item.command = { command: COMMANDS.openArtifact, title: 'Open Artifact', arguments: [node] };
      return item;
    }
    const e = node.evidence;
    const item = new vscode.TreeItem(oneLine(e.summary, 100), e.artifacts.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = `evidence:${e.seq}`;
    item.description = `${e.todoId ?? e.goalId} · ${clean(e.kind)} · ${clean(e.actor)} · ${relativeTime(e.at, Date.now())}`;
    item.iconPath = new vscode.ThemeIcon(e.kind === 'test' ? 'beaker' : e.kind === 'ship' ? 'rocket' : 'note');
    item.contextValue = CONTEXT.evidence;
    item.tooltip = new vscode.MarkdownString().appendText(`#${e.seq} ${clean(e.summary)}`);
    item.command = { command: COMMANDS.showEvidence, title: 'Show Evidence', arguments: [node] };
    return item;
  }
}

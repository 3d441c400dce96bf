import * as vscode from 'vscode';
import type { Artifact } from '../../kernel/events/eventTypes';
import { type Evidence, describeRun } from '../../kernel/evidence/evidenceQueries';
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
    if (node.kind === 'evidence')
      return node.evidence.artifacts.map((artifact) => ({ kind: 'artifact', artifact, seq: node.evidence.seq }));
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
    const item = new vscode.TreeItem(
      oneLine(e.summary, 100),
      e.artifacts.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `evidence:${e.seq}`;
    const verified = e.run !== null;
    item.description = `${e.todoId ?? e.goalId} · ${clean(e.kind)} · ${verified ? `kernel-verified, asked by ${clean(e.actor)}` : clean(e.actor)} · ${relativeTime(e.at, Date.now())}${e.afterShip ? ' · after it shipped' : ''}`;
    // A shield marks what loopx ran itself (green when it passed); other evidence is what someone wrote.
    item.iconPath = verified
      ? new vscode.ThemeIcon('shield', new vscode.ThemeColor(e.run?.exitCode === 0 ? 'charts.green' : 'charts.red'))
      : new vscode.ThemeIcon(e.kind === 'test' ? 'beaker' : e.kind === 'ship' ? 'rocket' : 'note');
    item.contextValue = CONTEXT.evidence;
    const tooltip = new vscode.MarkdownString(undefined, true);
    if (e.run) tooltip.appendMarkdown('$(shield) **Kernel-verified:** ').appendText(describeRun(e.run)).appendMarkdown('\n\n');
    item.tooltip = tooltip.appendText(`#${e.seq} ${clean(e.summary)}`);
    item.command = { command: COMMANDS.showEvidence, title: 'Show Evidence', arguments: [node] };
    return item;
  }
}

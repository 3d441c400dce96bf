import * as vscode from 'vscode';
import { clean, relativeTime } from '../../protocol/display';
import { waitingWords } from '../../protocol/projectWords';
import { countOf } from '../../shared/countWords';
import type { ProjectSummary } from '../../kernel/readModels/projectSummary';
import { CONTEXT } from './contextValues';

export type ProjectNode = { kind: 'project'; project: ProjectSummary };

/**
 * The person's other projects (kernel/projects: every folder LoopX initialised or opened for them), what waits on
 * them first, each opening its folder in a new window. The list is read by ProjectsView, which decides when.
 */
export class ProjectsTreeProvider implements vscode.TreeDataProvider<ProjectNode> {
  private readonly changed = new vscode.EventEmitter<ProjectNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private projects: ProjectSummary[] = [];

  show(projects: ProjectSummary[]): void {
    this.projects = projects;
    this.changed.fire(undefined);
  }

  /** How many of the shown projects have something waiting on the person (the view's badge). */
  waitingProjects(): number {
    return this.projects.filter((p) => (p.waiting?.total ?? 0) > 0).length;
  }

  getChildren(node?: ProjectNode): ProjectNode[] {
    return node ? [] : this.projects.map((project) => ({ kind: 'project', project }));
  }

  getTreeItem({ project: p }: ProjectNode): vscode.TreeItem {
    const item = new vscode.TreeItem(clean(p.name), vscode.TreeItemCollapsibleState.None);
    item.id = `project:${p.root}`;
    const waits = p.waiting?.total ?? 0;
    item.description = p.state !== 'ok' ? clean(p.problem ?? '') : waits > 0 ? waitingWords(p.waiting!) : 'nothing waits on you';
    item.iconPath =
      p.state !== 'ok'
        ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('charts.orange'))
        : waits > 0
          ? new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('charts.yellow'))
          : new vscode.ThemeIcon(p.store === 'team' ? 'organization' : 'folder');
    item.contextValue = CONTEXT.project(p.state);
    item.tooltip = tooltip(p);
    if (p.state === 'ok' || p.state === 'unreadable')
      item.command = { command: 'loopx.openProject', title: 'Open in New Window', arguments: [{ kind: 'project', project: p }] };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

function tooltip(p: ProjectSummary): vscode.MarkdownString {
  const now = Date.now();
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown('**').appendText(clean(p.name)).appendMarkdown('**\n\n').appendText(clean(p.root)).appendMarkdown('\n\n');
  if (p.state !== 'ok') {
    md.appendText(clean(p.problem ?? '')).appendMarkdown('\n\n');
    if (p.state === 'missing') md.appendText('Moved? Open it from its new place and LoopX finds it again.');
    return md;
  }
  md.appendText(p.store === 'team' ? "A team store (this machine's copy)" : 'A store of its own').appendMarkdown('\n\n');
  if (p.waiting && p.waiting.total > 0) md.appendMarkdown('$(bell) ').appendText(waitingWords(p.waiting)).appendMarkdown('\n\n');
  const facts = [
    p.goals ? countOf(p.goals.active, 'goal running', 'goals running') : null,
    p.running ? countOf(p.running, 'turn running', 'turns running') : null,
    p.lastActivity ? `last change ${relativeTime(p.lastActivity, now)}` : null,
  ].filter((f): f is string => f !== null);
  md.appendText(facts.join(' · ')).appendMarkdown('\n\n').appendText('Click to open it in a new window.');
  return md;
}

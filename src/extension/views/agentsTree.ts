import * as vscode from 'vscode';
import type { Agent, Todo } from '../../kernel/model';
import { clean, relativeTime } from '../../protocol/display';
import { Disposable } from '../util/lifecycle';
import type { StoreModel } from '../store/storeModel';
import { CONTEXT } from './contextValues';
import { leaseLive } from '../../kernel/queries/lookups';

export type AgentNode = { kind: 'agent'; agent: Agent } | { kind: 'held'; todo: Todo };

const KIND_ICON: Record<Agent['kind'], string> = { codex: 'hubot', claude: 'sparkle', custom: 'tools', human: 'person' };

/** Who holds what, with lease countdowns and when each agent was last seen. */
export class AgentsTreeProvider extends Disposable implements vscode.TreeDataProvider<AgentNode> {
  private readonly changed = this.register(new vscode.EventEmitter<AgentNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly model: StoreModel) {
    super();
    this.register(model.onDidChange(() => this.changed.fire(undefined)));
  }

  refreshTimes(): void {
    this.changed.fire(undefined);
  }

  getChildren(node?: AgentNode): AgentNode[] {
    if (!node) return this.model.agents().map((agent) => ({ kind: 'agent', agent }));
    if (node.kind === 'agent') {
      return node.agent.holding
        .map((id) => this.model.todo(id))
        .filter((t): t is Todo => t !== undefined)
        .map((todo) => ({ kind: 'held', todo }));
    }
    return [];
  }

  getTreeItem(node: AgentNode): vscode.TreeItem {
    const now = Date.now();
    if (node.kind === 'held') {
      const t = node.todo;
      const lapsed = !leaseLive(t, new Date(now).toISOString());
      const item = new vscode.TreeItem(`${t.id} ${clean(t.title)}`, vscode.TreeItemCollapsibleState.None);
      item.id = `held:${t.id}`;
      item.description = lapsed
        ? `lease lapsed ${relativeTime(t.leaseExpiresAt, now)}`
        : `lease ends ${relativeTime(t.leaseExpiresAt, now)}`;
      item.iconPath = new vscode.ThemeIcon(lapsed ? 'warning' : 'watch', new vscode.ThemeColor(lapsed ? 'charts.orange' : 'charts.yellow'));
      return item;
    }
    const a = node.agent;
    const state = a.holding.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None;
    const item = new vscode.TreeItem(clean(a.name), state);
    item.id = `agent:${a.name}`;
    // The kind only where the name does not already say it ("codex codex" read as a stutter); a `loopx run` names
    // itself: its turns run outside VS Code, in a terminal, tmux or a service.
    const runner = this.model.runners().get(a.name);
    const kind = a.kind === 'human' ? 'person' : a.kind === a.name ? '' : a.kind;
    item.description = [
      kind,
      runner ? `runner (loopx run, ${runner.host})` : '',
      a.holding.length ? `holds ${a.holding.length}` : '',
      `seen ${relativeTime(a.lastSeen, now)}`,
    ]
      .filter(Boolean)
      .join(' · ');
    item.tooltip = runner
      ? `${clean(a.name)} runs turns with loopx run on the ${runner.host} host (pid ${runner.pid}, started ${runner.startedAt}).`
      : `${clean(a.name)} (${a.kind === 'human' ? 'a person' : `${a.kind} agent`}), last seen ${new Date(a.lastSeen).toLocaleString()}`;
    item.iconPath = new vscode.ThemeIcon(runner ? 'server-process' : KIND_ICON[a.kind]);
    item.contextValue = CONTEXT.agent;
    return item;
  }
}

import * as vscode from 'vscode';
import type { Agent, Todo } from '../../kernel/model';
import { clean, clockTime, relativeTime } from '../../protocol/display';
import { Disposable } from '../util/lifecycle';
import type { StoreModel } from '../store/storeModel';
import { CONTEXT } from './contextValues';
import { leaseLive } from '../../kernel/todos/todoQueries';

export type AgentNode = { kind: 'agent'; agent: Agent } | { kind: 'held'; todo: Todo };

const KIND_ICON: Record<Agent['kind'], string> = { codex: 'hubot', claude: 'sparkle', custom: 'tools', human: 'person' };
/** What an agent is, in words; the store's kinds (`custom`) are codes. */
const KIND_WORDS: Record<Agent['kind'], string> = { codex: 'Codex', claude: 'Claude Code', custom: 'agent', human: 'person' };

/** Who holds what, with lease countdowns and when each agent was last seen. */
export class AgentsTreeProvider extends Disposable implements vscode.TreeDataProvider<AgentNode> {
  private readonly changed = this.register(new vscode.EventEmitter<AgentNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(
    private readonly model: StoreModel,
    /** The person at this window: their row reads "(you)". */
    private readonly me: string,
  ) {
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
    const you = a.kind === 'human' && a.name === this.me;
    const item = new vscode.TreeItem(you ? `${clean(a.name)} (you)` : clean(a.name), state);
    item.id = `agent:${a.name}`;
    // What it is in words, only where the name does not already say it ("codex · Codex" read as a stutter); a
    // `loopx run` names itself: its turns run outside VS Code, in a terminal, tmux or a service.
    const runner = this.model.runners().get(a.name);
    const said = a.kind !== 'human' && a.kind !== 'custom' && a.name.toLowerCase().startsWith(a.kind);
    const kind = runner || said ? '' : KIND_WORDS[a.kind];
    item.description = [
      kind,
      runner ? `runner (loopx run, ${runner.host})` : '',
      a.holding.length ? `holds ${a.holding.length}` : '',
      `seen ${relativeTime(a.lastSeen, now)}`,
    ]
      .filter(Boolean)
      .join(' · ');
    item.tooltip = runner
      ? `${clean(a.name)} runs turns with loopx run on the ${runner.host} host (pid ${runner.pid}, started ${clockTime(runner.startedAt, now)}).`
      : `${clean(a.name)} (${a.kind === 'human' ? (you ? 'you, the person at this window' : 'a person') : a.kind === 'custom' ? 'an agent' : `a ${KIND_WORDS[a.kind]} agent`}), last seen ${clockTime(a.lastSeen, now)}`;
    item.iconPath = new vscode.ThemeIcon(runner ? 'server-process' : KIND_ICON[a.kind]);
    item.contextValue = CONTEXT.agent;
    return item;
  }
}

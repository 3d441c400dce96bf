import * as vscode from 'vscode';
import { type Goal, type Todo, type TodoStatus, isTerminalStatus } from '../../kernel/model';
import { boardColumn } from '../../kernel/todos/todoQueries';
import { clean } from '../../protocol/display';
import { Disposable } from '../util/lifecycle';
import type { StoreModel } from '../store/storeModel';
import { COMMANDS } from '../commands/commandIds';
import { CONTEXT } from './contextValues';
import {
  GROUPS,
  type TodoGroup,
  goalDescription,
  goalProgress,
  groupIcon,
  todoDescription,
  todoIcon,
  todoTooltip,
} from './todoPresentation';
import { BUILT_IN_HOSTS } from '../../shared/hostCatalog';

const MORE_ICON = new vscode.ThemeIcon('ellipsis');

/** A host's name for people: the catalog's (Claude Code), else its id (a person's own host, custom). */
const hostName = (id: string): string =>
  BUILT_IN_HOSTS.find((h) => h.id === id)?.name ?? (id === 'custom' ? 'a custom command' : clean(id));

export type GoalsNode =
  | { kind: 'goal'; goal: Goal }
  | { kind: 'group'; goalId: string; group: TodoGroup; count: number }
  | { kind: 'todo'; todo: Todo; ready: boolean }
  /** The row after a group's first page: "… 4,800 more", which shows the next page when clicked. */
  | { kind: 'more'; goalId: string; group: TodoGroup; hidden: number };

/** Rows a group shows before "… N more": a tree of thousands of rows is slow to render and useless to scroll. */
export const GROUP_PAGE = 200;

/**
 * Goals → todos grouped like the board's columns. Renders the model; never queries more than is expanded, and never
 * more than a page per group until asked (the board is the place to browse thousands).
 */
export class GoalsTreeProvider extends Disposable implements vscode.TreeDataProvider<GoalsNode> {
  private readonly changed = this.register(new vscode.EventEmitter<GoalsNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  /** Rows shown per "goal:group" beyond the first page, after "… N more" was clicked. */
  private readonly shown = new Map<string, number>();
  /** Filter Todos…: only todos whose id or title contains this (lower case); '' shows everything. */
  private get text(): string {
    return this.filter.text.toLowerCase();
  }

  private matches(todo: Todo): boolean {
    return !this.text || todo.id.toLowerCase().includes(this.text) || todo.title.toLowerCase().includes(this.text);
  }

  constructor(
    private readonly model: StoreModel,
    private readonly me: string,
    private readonly filter: { readonly text: string; onDidChange: vscode.Event<string> } = {
      text: '',
      onDidChange: () => ({ dispose() {} }),
    },
  ) {
    super();
    this.register(model.onDidChange(() => this.changed.fire(undefined)));
    this.register(filter.onDidChange(() => this.changed.fire(undefined)));
  }

  /** Re-render descriptions (lease countdowns) without touching the store. */
  refreshTimes(): void {
    this.changed.fire(undefined);
  }

  getChildren(node?: GoalsNode): GoalsNode[] {
    // Filtered: the goals with a todo that matches (or whose own id or title does).
    if (!node)
      return this.model
        .goals()
        .filter((goal) => !this.text || `${goal.id} ${goal.title}`.toLowerCase().includes(this.text) || this.groupsOf(goal.id).length > 0)
        .map((goal) => ({ kind: 'goal', goal }));
    if (node.kind === 'goal') return this.groupsOf(node.goal.id);
    if (node.kind === 'group') return this.page(node.goalId, node.group, this.todosOf(node.goalId, node.group));
    return [];
  }

  /** Shows the next page of a group (the "… N more" row's action). */
  showMore(node: { goalId: string; group: TodoGroup }): void {
    const key = `${node.goalId}:${node.group}`;
    this.shown.set(key, (this.shown.get(key) ?? GROUP_PAGE) + GROUP_PAGE);
    this.changed.fire(undefined);
  }

  private page(goalId: string, group: TodoGroup, rows: GoalsNode[]): GoalsNode[] {
    const limit = this.shown.get(`${goalId}:${group}`) ?? GROUP_PAGE;
    if (rows.length <= limit) return rows;
    return [...rows.slice(0, limit), { kind: 'more', goalId, group, hidden: rows.length - limit }];
  }

  private groupsOf(goalId: string): GoalsNode[] {
    const ready = this.model.readyIds(goalId);
    const shown = (status: TodoStatus) => {
      const all = this.model.todos(goalId, status);
      return this.text ? all.filter((t) => this.matches(t)) : all;
    };
    const open = shown('open');
    const sizes: Record<TodoGroup, number> = {
      ready: open.filter((t) => ready.has(t.id)).length,
      waiting: open.filter((t) => !ready.has(t.id)).length,
      claimed: shown('claimed').length,
      in_review: shown('in_review').length,
      blocked: shown('blocked').length,
      shipped: shown('shipped').length,
      killed: shown('killed').length,
    };
    return GROUPS.filter((g) => sizes[g.id] > 0).map((g) => ({ kind: 'group', goalId, group: g.id, count: sizes[g.id] }));
  }

  private todosOf(goalId: string, group: TodoGroup): GoalsNode[] {
    if (group === 'ready' || group === 'waiting') {
      const ready = this.model.readyIds(goalId);
      return this.model
        .todos(goalId, 'open')
        .filter((t) => ready.has(t.id) === (group === 'ready') && this.matches(t))
        .map((todo) => ({ kind: 'todo', todo, ready: group === 'ready' }));
    }
    return this.model
      .todos(goalId, group)
      .filter((t) => this.matches(t))
      .map((todo) => ({ kind: 'todo', todo, ready: false }));
  }

  /** Tooltips are built on hover only: a goal with thousands of todos renders without building thousands of them. */
  resolveTreeItem(item: vscode.TreeItem, node: GoalsNode): vscode.TreeItem {
    if (node.kind === 'todo') item.tooltip = todoTooltip(node.todo, Date.now(), this.model.changes().get(node.todo.id));
    return item;
  }

  getParent(node: GoalsNode): GoalsNode | undefined {
    if (node.kind === 'goal') return undefined;
    const goalId = node.kind === 'todo' ? node.todo.goalId : node.goalId;
    const goal = this.model.goals().find((g) => g.id === goalId);
    if (!goal) return undefined;
    if (node.kind === 'group') return { kind: 'goal', goal };
    if (node.kind === 'more') return { kind: 'group', goalId, group: node.group, count: 0 };
    const group: TodoGroup = boardColumn(node.todo.status, node.ready);
    return { kind: 'group', goalId, group, count: 0 };
  }

  getTreeItem(node: GoalsNode): vscode.TreeItem {
    const now = Date.now();
    if (node.kind === 'goal') {
      const g = node.goal;
      const item = new vscode.TreeItem(`${g.id} ${clean(g.title)}`, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `goal:${g.id}`;
      item.contextValue = CONTEXT.goal(g.status);
      const counts = this.model.status()?.goals.find((x) => x.id === g.id)?.counts;
      const { shipped, total } = goalProgress(counts);
      item.description = goalDescription(g, counts);
      item.iconPath = new vscode.ThemeIcon(
        g.status === 'active' ? 'target' : 'debug-pause',
        new vscode.ThemeColor(g.status === 'active' ? 'charts.green' : 'disabledForeground'),
      );
      item.tooltip = new vscode.MarkdownString().appendText(
        `${g.id} ${clean(g.title)}\n\n${shipped} of ${total} todos shipped${g.status === 'active' ? '' : ` · ${g.status}`}` +
          `${g.host ? `\n\nIts turns run on ${hostName(g.host)}` : ''}\n\n${clean(g.objective)}`,
      );
      item.accessibilityInformation = { label: `${g.id} ${clean(g.title)}, ${g.status}, ${shipped} of ${total} todos shipped` };
      return item;
    }
    if (node.kind === 'group') {
      const label = GROUPS.find((g) => g.id === node.group)?.label ?? node.group;
      const collapsed = isTerminalStatus(node.group);
      const item = new vscode.TreeItem(
        label,
        collapsed ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded,
      );
      item.id = `group:${node.goalId}:${node.group}`;
      item.description = String(node.count);
      item.contextValue = CONTEXT.group;
      item.iconPath = groupIcon(node.group);
      return item;
    }
    if (node.kind === 'more') {
      const item = new vscode.TreeItem(`… ${node.hidden.toLocaleString('en-US')} more`, vscode.TreeItemCollapsibleState.None);
      item.id = `more:${node.goalId}:${node.group}`;
      item.description = `show ${Math.min(GROUP_PAGE, node.hidden)} more; the board filters them all`;
      item.iconPath = MORE_ICON;
      item.contextValue = CONTEXT.more;
      item.command = { command: COMMANDS.showMoreTodos, title: 'Show More', arguments: [{ goalId: node.goalId, group: node.group }] };
      return item;
    }
    const t = node.todo;
    const item = new vscode.TreeItem(`${t.id} ${clean(t.title)}`, vscode.TreeItemCollapsibleState.None);
    item.id = `todo:${t.id}`;
    const change = this.model.changes().get(t.id);
    item.description = todoDescription(t, now, node.ready, change);
    item.contextValue = CONTEXT.todo(t, this.me, change);
    item.iconPath = todoIcon(t, node.ready, new Date(now).toISOString());
    item.accessibilityInformation = { label: `${t.id} ${clean(t.title)}, ${t.status}, ${item.description}` };
    return item;
  }
}

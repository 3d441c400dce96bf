import * as vscode from 'vscode';
import { type Goal, type Todo, type TodoStatus, isTerminalStatus } from '../../kernel/model';
import { BOARD_COLUMNS, type BoardColumn, boardColumn, leaseLive } from '../../kernel/todos/todoQueries';
import { reviewLive } from '../../kernel/todos/reviewQueries';
import { clean, forPeople, oneLine, relativeTime } from '../../protocol/display';
import { COLUMN_TITLES, type CardChange } from '../../protocol/boardProtocol';
import { TODO_STATUS_WORDS } from '../../protocol/todoWords';
import { changeDetails, changeSize, waitsToLand } from '../../protocol/changeWords';
import { Disposable } from '../util/lifecycle';
import type { StoreModel } from '../store/storeModel';
import { COMMANDS } from '../commands/commandIds';
import { CONTEXT } from './contextValues';
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

// How the Goals view's rows look (the board's columns as groups; a todo's and a goal's line and tooltip): codicons
// with theme colours, and the same description wherever a todo is listed.

/** The Goals view groups todos by the board's columns (the kernel's rule), under the board's titles. */
export type TodoGroup = BoardColumn;

const GROUP_LOOKS: Record<TodoGroup, { icon: string; color?: string }> = {
  ready: { icon: 'play-circle', color: 'charts.blue' },
  waiting: { icon: 'clock', color: 'descriptionForeground' },
  claimed: { icon: 'sync', color: 'charts.yellow' },
  in_review: { icon: 'eye', color: 'charts.purple' },
  blocked: { icon: 'error', color: 'charts.red' },
  shipped: { icon: 'pass-filled', color: 'charts.green' },
  killed: { icon: 'circle-slash', color: 'disabledForeground' },
};

export const GROUPS: { id: TodoGroup; label: string; icon: string; color?: string }[] = BOARD_COLUMNS.map((id) => ({
  id,
  label: COLUMN_TITLES[id],
  ...GROUP_LOOKS[id],
}));

// Icons are shared objects: a large board renders thousands of rows with a handful of icons.
const GROUP_ICONS = new Map(GROUPS.map((g) => [g.id, new vscode.ThemeIcon(g.icon, g.color ? new vscode.ThemeColor(g.color) : undefined)]));
const LAPSED_ICON = new vscode.ThemeIcon('warning', new vscode.ThemeColor('charts.orange'));

export function groupIcon(group: TodoGroup): vscode.ThemeIcon {
  return GROUP_ICONS.get(group) as vscode.ThemeIcon;
}

export function todoIcon(todo: Todo, ready: boolean, nowIso: string): vscode.ThemeIcon {
  if (todo.status === 'claimed' && !leaseLive(todo, nowIso)) return LAPSED_ICON;
  return groupIcon(boardColumn(todo.status, ready));
}

/**
 * "codex · lease 12m · P1 · 2 evidence · after T2": who holds it and for how long first, because a narrow side bar
 * cuts the end of a description off (dependencies only while they still hold the todo back).
 */
export function todoDescription(todo: Todo, nowMs: number, ready = false, change?: CardChange): string {
  const bits: string[] = [];
  // A shipped change nobody landed yet is what a person looks for first.
  if (change && waitsToLand({ status: todo.status, change })) bits.push(`to merge: ${changeSize(change)}`);
  if (todo.status === 'in_review') {
    // A review's claim is its reviewer's: said as such, never as the todo's holder.
    const reviewing = todo.owner !== null && reviewLive(todo, new Date(nowMs).toISOString());
    bits.push(reviewing ? `${clean(todo.owner as string)} reviewing` : 'waits for a reviewer', `review round ${todo.reviewRound}`);
  } else if (todo.owner) {
    const lapsed = !leaseLive(todo, new Date(nowMs).toISOString());
    bits.push(clean(todo.owner), lapsed ? 'lease lapsed' : `lease ${relativeTime(todo.leaseExpiresAt, nowMs)}`);
  }
  if (todo.status === 'blocked' && todo.reason) bits.push(oneLine(forPeople(todo.reason, nowMs), 60));
  bits.push(`P${todo.priority}`);
  if (todo.evidenceCount) bits.push(`${todo.evidenceCount} evidence`);
  if (todo.dependsOn.length && todo.status === 'open' && !ready) bits.push(`after ${todo.dependsOn.join(', ')}`);
  if (todo.recurrence) bits.push(`recurs ${clean(todo.recurrence.text)}`);
  if (todo.status === 'open' && todo.readyAt && Date.parse(todo.readyAt) > nowMs) bits.push(`next ${relativeTime(todo.readyAt, nowMs)}`);
  return bits.join(' · ');
}

export function todoTooltip(todo: Todo, nowMs: number, change?: CardChange): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.supportHtml = false;
  md.isTrusted = false;
  md.appendMarkdown(`**${todo.id}** `).appendText(clean(todo.title)).appendMarkdown(`\n\n`);
  if (todo.owner)
    md.appendMarkdown(`$(person) `)
      .appendText(
        `${clean(todo.owner)} ${todo.status === 'in_review' ? 'reviews its change' : 'holds it'}, lease ${relativeTime(todo.leaseExpiresAt, nowMs)}`,
      )
      .appendMarkdown('\n\n');
  md.appendMarkdown(`$(tag) ${TODO_STATUS_WORDS[todo.status]} · priority ${todo.priority} (0 is the highest)\n\n`);
  if (todo.implementer)
    md.appendMarkdown('$(eye) ')
      .appendText(`review round ${todo.reviewRound}: ${clean(todo.implementer)} made the change`)
      .appendMarkdown('\n\n');
  if (todo.detail) md.appendMarkdown('**Acceptance:** ').appendText(forPeople(todo.detail, nowMs)).appendMarkdown('\n\n');
  if (todo.continuation) md.appendMarkdown('**Continuation:** ').appendText(forPeople(todo.continuation, nowMs)).appendMarkdown('\n\n');
  if (todo.reason) md.appendMarkdown('**Reason:** ').appendText(forPeople(todo.reason, nowMs)).appendMarkdown('\n\n');
  if (todo.dependsOn.length) md.appendMarkdown(`**Depends on:** ${todo.dependsOn.join(', ')}\n\n`);
  if (todo.check) md.appendMarkdown('$(shield) **Acceptance check:** ').appendText(clean(todo.check)).appendMarkdown('\n\n');
  if (todo.recurrence)
    md.appendMarkdown('$(sync) **Recurs** ')
      .appendText(clean(todo.recurrence.text))
      .appendMarkdown(todo.previousId ? ` (follows ${todo.previousId})` : '')
      .appendMarkdown('\n\n');
  if (change) {
    const [head, ...rest] = changeDetails(change, todo.status);
    md.appendMarkdown('$(git-branch) ')
      .appendText(head ?? '')
      .appendMarkdown('\n\n');
    for (const line of rest) md.appendText(line.trim()).appendMarkdown('  \n');
    md.appendMarkdown('\n');
  }
  md.appendMarkdown(`$(checklist) ${todo.evidenceCount} evidence`);
  return md;
}

/** "1/6": shipped of the todos that count (killed ones do not); a status that is not active goes first. */
export function goalDescription(goal: Goal, counts: Record<string, number> | undefined): string {
  const { shipped, total } = goalProgress(counts);
  const parts = [`${shipped}/${total}`];
  if (goal.status !== 'active') parts.unshift(goal.status);
  return parts.join(' · ');
}

export function goalProgress(counts: Record<string, number> | undefined): { shipped: number; total: number } {
  const c = counts ?? {};
  return { shipped: c.shipped ?? 0, total: Object.values(c).reduce((a, b) => a + b, 0) - (c.killed ?? 0) };
}

import * as vscode from 'vscode';
import type { Goal, Todo } from '../../kernel/model';
import { clean, forPeople, oneLine, relativeTime } from '../../protocol/display';
import { COLUMN_TITLES } from '../../protocol/boardProtocol';
import { TODO_STATUS_WORDS } from '../../protocol/todoWords';
import { BOARD_COLUMNS, type BoardColumn, boardColumn, leaseLive } from '../../kernel/todos/todoQueries';
import { reviewLive } from '../../kernel/todos/reviewQueries';
import type { CardChange } from '../../protocol/boardProtocol';
import { changeDetails, changeSize, waitsToLand } from '../../protocol/changeWords';

/** How todos and goals look in every view: codicons with theme colours, and the same description everywhere. */
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

import * as vscode from 'vscode';
import type { Goal, Todo } from '../../kernel/model';
import { clean, oneLine, relativeTime } from '../../protocol/display';

/** How todos and goals look in every view: codicons with theme colours, and the same description everywhere. */
export type TodoGroup = 'ready' | 'waiting' | 'claimed' | 'blocked' | 'shipped' | 'killed';

export const GROUPS: { id: TodoGroup; label: string; icon: string; color?: string }[] = [
  { id: 'ready', label: 'Ready', icon: 'play-circle', color: 'charts.blue' },
  { id: 'waiting', label: 'Waiting', icon: 'clock', color: 'descriptionForeground' },
  { id: 'claimed', label: 'In progress', icon: 'sync', color: 'charts.yellow' },
  { id: 'blocked', label: 'Blocked', icon: 'error', color: 'charts.red' },
  { id: 'shipped', label: 'Shipped', icon: 'pass-filled', color: 'charts.green' },
  { id: 'killed', label: 'Killed', icon: 'circle-slash', color: 'disabledForeground' },
];

// Icons are shared objects: a large board renders thousands of rows with a handful of icons.
const GROUP_ICONS = new Map(GROUPS.map((g) => [g.id, new vscode.ThemeIcon(g.icon, g.color ? new vscode.ThemeColor(g.color) : undefined)]));
const LAPSED_ICON = new vscode.ThemeIcon('warning', new vscode.ThemeColor('charts.orange'));

export function groupIcon(group: TodoGroup): vscode.ThemeIcon {
  return GROUP_ICONS.get(group) as vscode.ThemeIcon;
}

export function todoIcon(todo: Todo, ready: boolean, nowIso: string): vscode.ThemeIcon {
  if (todo.status === 'claimed' && todo.leaseExpiresAt && todo.leaseExpiresAt <= nowIso) return LAPSED_ICON;
  if (todo.status === 'open') return groupIcon(ready ? 'ready' : 'waiting');
  return groupIcon(todo.status);
}

/** "P1 · codex · lease in 12m · 2 evidence · after T2" (dependencies only while they still hold the todo back). */
export function todoDescription(todo: Todo, nowMs: number, ready = false): string {
  const bits = [`P${todo.priority}`];
  if (todo.owner) {
    const lapsed = todo.leaseExpiresAt !== null && Date.parse(todo.leaseExpiresAt) <= nowMs;
    bits.push(clean(todo.owner), lapsed ? 'lease lapsed' : `lease ${relativeTime(todo.leaseExpiresAt, nowMs)}`);
  }
  if (todo.evidenceCount) bits.push(`${todo.evidenceCount} evidence`);
  if (todo.dependsOn.length && todo.status === 'open' && !ready) bits.push(`after ${todo.dependsOn.join(', ')}`);
  if (todo.recurrence) bits.push(`recurs ${clean(todo.recurrence.text)}`);
  if (todo.status === 'open' && todo.readyAt && Date.parse(todo.readyAt) > nowMs) bits.push(`next ${relativeTime(todo.readyAt, nowMs)}`);
  if (todo.status === 'blocked' && todo.reason) bits.push(oneLine(todo.reason, 60));
  return bits.join(' · ');
}

export function todoTooltip(todo: Todo, nowMs: number): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.supportHtml = false;
  md.isTrusted = false;
  md.appendMarkdown(`**${todo.id}** `).appendText(clean(todo.title)).appendMarkdown(`\n\n`);
  md.appendMarkdown(`$(tag) ${todo.status} · priority ${todo.priority} · revision ${todo.revision}\n\n`);
  if (todo.owner) md.appendMarkdown(`$(person) `).appendText(`${clean(todo.owner)}, lease ${relativeTime(todo.leaseExpiresAt, nowMs)}`).appendMarkdown('\n\n');
  if (todo.detail) md.appendMarkdown('**Acceptance:** ').appendText(clean(todo.detail)).appendMarkdown('\n\n');
  if (todo.continuation) md.appendMarkdown('**Continuation:** ').appendText(clean(todo.continuation)).appendMarkdown('\n\n');
  if (todo.reason) md.appendMarkdown('**Reason:** ').appendText(clean(todo.reason)).appendMarkdown('\n\n');
  if (todo.dependsOn.length) md.appendMarkdown(`**Depends on:** ${todo.dependsOn.join(', ')}\n\n`);
  if (todo.check) md.appendMarkdown('$(shield) **Acceptance check:** ').appendText(clean(todo.check)).appendMarkdown('\n\n');
  if (todo.recurrence) md.appendMarkdown('$(sync) **Recurs** ').appendText(clean(todo.recurrence.text)).appendMarkdown(todo.previousId ? ` (follows ${todo.previousId})` : '').appendMarkdown('\n\n');
  md.appendMarkdown(`$(checklist) ${todo.evidenceCount} evidence`);
  return md;
}

export function goalDescription(goal: Goal, counts: Record<string, number> | undefined): string {
  const c = counts ?? {};
  const parts = [`${c.shipped ?? 0}/${Object.values(c).reduce((a, b) => a + b, 0) - (c.killed ?? 0)} shipped`];
  if (goal.status !== 'active') parts.unshift(goal.status);
  return parts.join(' · ');
}

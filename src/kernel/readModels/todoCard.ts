/** A todo's live state in words and Markdown: the language server's hovers and lenses, the extension's todo document. */
import type { SqliteDb } from '../db/sqliteDb';
import type { Todo } from '../model';
import { listEvidence } from '../evidence/evidenceQueries';
import { iso } from '../time';
import { relativeTime } from '../../shared/timeWords';
import { listGates } from '../gates/gateQueries';
import { leaseLive } from '../todos/todoQueries';

/** One line for a todo's lens: "T3 · claimed by codex (lease ends in 12 min)". */
export function todoStatusLine(todo: Todo, nowMs: number): string {
  const at = iso(nowMs);
  if (todo.status === 'claimed') {
    return leaseLive(todo, at)
      ? `${todo.id} · claimed by ${todo.owner} (lease ends ${relativeTime(todo.leaseExpiresAt as string, nowMs)})`
      : `${todo.id} · ${todo.owner}'s lease lapsed ${relativeTime(todo.leaseExpiresAt as string, nowMs)}`;
  }
  if (todo.status === 'blocked') return `${todo.id} · blocked: ${todo.reason ?? ''}`.trimEnd();
  return `${todo.id} · ${todo.status}`;
}

/** Markdown for a hover on a todo: status, owner and lease, evidence, pending gates. */
export function todoHover(db: SqliteDb, todo: Todo, nowMs: number): string {
  const lines = [
    `**${todo.id}** ${escapeMarkdown(todo.title)}`,
    '',
    `- status: ${todoStatusLine(todo, nowMs).replace(`${todo.id} · `, '')}`,
  ];
  lines.push(`- priority ${todo.priority}${todo.dependsOn.length ? ` · waits for ${todo.dependsOn.join(', ')}` : ''}`);
  const evidence = listEvidence(db, { todoId: todo.id, limit: 1 })[0];
  lines.push(
    `- evidence: ${todo.evidenceCount}${evidence ? ` · latest ${relativeTime(evidence.at, nowMs)} by ${evidence.actor}: ${escapeMarkdown(evidence.summary)}` : ''}`,
  );
  const gates = listGates(db, { pending: true }).filter((g) => g.todoId === todo.id);
  if (gates.length) lines.push(`- waits for your decision: ${gates.map((g) => `${g.id} ${escapeMarkdown(g.question)}`).join('; ')}`);
  if (todo.continuation) lines.push(`- next: ${escapeMarkdown(todo.continuation)}`);
  return lines.join('\n');
}

/** Who last changed a todo or goal field in the store, and when. */
export function lastChange(db: SqliteDb, target: { goalId: string } | { todoId: string }): { actor: string; at: string } | null {
  const row =
    'todoId' in target
      ? db
          .prepare(`SELECT actor, at FROM events WHERE todo_id = ? AND kind IN ('todo.edited', 'todo.added') ORDER BY seq DESC LIMIT 1`)
          .get(target.todoId)
      : db
          .prepare(
            `SELECT actor, at FROM events WHERE goal_id = ? AND todo_id IS NULL AND kind IN ('goal.edited', 'goal.created') ORDER BY seq DESC LIMIT 1`,
          )
          .get(target.goalId);
  return row ? { actor: String(row.actor), at: String(row.at) } : null;
}

export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>]/g, (c) => `\\${c}`).replace(/\n/g, ' ');
}

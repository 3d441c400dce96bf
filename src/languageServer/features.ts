import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CodeAction,
  CodeActionKind,
  type CodeLens,
  type CompletionItem,
  CompletionItemKind,
  type Diagnostic,
  type Hover,
  MarkupKind,
  type Position,
} from 'vscode-languageserver';
import type { Analysis, DriftData } from './analysis';
import { todoHover, todoStatusLine } from '../kernel/readModels/todoCard';
import { goalHover } from './goalHover';
import { GOAL_KEYS, KEY_DOCS, QUOTA_KEYS, TODO_KEYS } from '../goalFile/schema';
import type { Range } from '../goalFile/diagnostics';
import { DEFAULT_HOSTS } from '../runtime/hosts';
import { relativeTime } from '../shared/timeWords';
import { findGoalTodo, getTodo } from '../kernel/todos/todoQueries';
import { getGoal } from '../kernel/goals/goalQueries';
import { listAgents } from '../kernel/turns/runners';

/**
 * Arguments that name the workspace folder (the shape of src/extension/commands/inFolder.ts), so a lens acts in the
 * folder of its store in a multi-root window.
 */
function inFolder(root: string, ...args: unknown[]): { loopxFolder: string; args: unknown[] } {
  return { loopxFolder: root, args };
}

/** VS Code commands the lenses and fixes invoke (contributed by the extension, which is the writer). */
export const APPLY_COMMAND = 'loopx.applyGoalFile';

const within = (r: Range, p: Position) =>
  (p.line > r.start.line || (p.line === r.start.line && p.character >= r.start.character)) &&
  (p.line < r.end.line || (p.line === r.end.line && p.character <= r.end.character));

function inFrontMatter(a: Analysis, line: number, lines: readonly string[]): boolean {
  if (a.parsed.frontMatterLines) return line >= a.parsed.frontMatterLines.start && line <= a.parsed.frontMatterLines.end;
  const close = lines.findIndex((l, i) => i > 0 && /^---\s*$/.test(l));
  return line > 0 && (close === -1 || line < close);
}

/** The key line above with less indentation than `line` (the mapping this line belongs to). */
function parentKey(lines: readonly string[], line: number): string | null {
  const indent = (l: string) => /^(\s*(?:-\s+)?)/.exec(l)?.[1]?.length ?? 0;
  const own = indent(lines[line] ?? '');
  for (let i = line - 1; i >= 0; i--) {
    const l = lines[i] ?? '';
    if (l.trim() === '' || l.trim().startsWith('#')) continue;
    if (/^---\s*$/.test(l)) return null;
    if (
      indent(l) < own ||
      (/^\s*-\s/.test(l) && (lines[line] ?? '').startsWith(' ') && indent(l) <= own && !/^\s*-\s/.test(lines[line] ?? ''))
    ) {
      const m = /^\s*(?:-\s+)?([A-Za-z]+):/.exec(l);
      if (/^\s*-\s/.test(l)) return 'todos[]';
      return m?.[1] ?? null;
    }
  }
  return null;
}

export function completions(a: Analysis, text: string, pos: Position): CompletionItem[] {
  const lines = text.split(/\r?\n/);
  const before = (lines[pos.line] ?? '').slice(0, pos.character);
  const mention = /(^|[\s([])@([A-Za-z0-9._-]*)$/.exec(before);
  if (mention) return mentions(a);
  if (!inFrontMatter(a, pos.line, lines)) return [];
  const fm = (a.parsed.frontMatter ?? {}) as Record<string, unknown>;
  // Entries may be empty (`- ` alone) or left out (a YAML error damaged them).
  const fileTodos = Array.isArray(fm.todos) ? (fm.todos as ({ key?: unknown } | null | undefined)[]) : [];
  const listOf = (key: string) =>
    new RegExp(`^\\s*${key}:\\s*\\[([^\\]]*)$`).test(before) || (/^\s*-\s*[^:]*$/.test(before) && parentKey(lines, pos.line) === key);
  if (listOf('after')) {
    // Read from the lines as well as the YAML: while \`after: [\` is half typed the YAML does not parse.
    const typed = lines.flatMap((l) => /^\s*-?\s*key:\s*([a-z0-9][a-z0-9-]*)\s*$/.exec(l)?.[1] ?? []);
    const own = ownKey(lines, pos.line);
    const keys = [...new Set([...fileTodos.map((t) => t?.key).filter((k): k is string => typeof k === 'string'), ...typed])].filter(
      (key) => key !== own, // a todo cannot come after itself
    );
    const goal = a.goal;
    return keys.map((key) => {
      // The store knows the key even while the half-typed list keeps the YAML (and so a.todos) from parsing.
      const todo = a.todos.get(key) ?? (goal && a.store ? a.store.read((db) => findGoalTodo(db, goal.id, { key })) : undefined);
      return { label: key, kind: CompletionItemKind.Reference, detail: todo ? todoStatusLine(todo, a.nowMs) : 'not in the store yet' };
    });
  }
  if (listOf('scope')) return scopeCompletions(a, before);
  const keyMatch = /^(\s*)(-\s+)?([A-Za-z]*)$/.exec(before);
  if (!keyMatch) return [];
  const parent = (keyMatch[1] ?? '').length === 0 && !keyMatch[2] ? null : (parentKey(lines, pos.line) ?? (keyMatch[2] ? 'todos[]' : null));
  const [keys, present]: [readonly string[], string[]] =
    parent === null
      ? [GOAL_KEYS, topLevelKeys(lines)]
      : parent === 'quota'
        ? [QUOTA_KEYS, Object.keys((fm.quota ?? {}) as object)]
        : parent === 'todos' || parent === 'todos[]'
          ? [TODO_KEYS, []]
          : [[], []];
  return keys
    .filter((k) => !present.includes(k))
    .map((key) => ({
      label: key,
      kind: CompletionItemKind.Property,
      insertText: `${key}: `,
      documentation: { kind: MarkupKind.Markdown, value: KEY_DOCS[key] ?? '' },
    }));
}

/** The key of the todo item the line belongs to (its `key:` line, above or below within the same `- ` item). */
function ownKey(lines: readonly string[], line: number): string | null {
  let start = line;
  while (start >= 0 && !/^\s*-\s/.test(lines[start] ?? '')) {
    if (/^---\s*$/.test(lines[start] ?? '') || /^\S/.test(lines[start] ?? '')) return null;
    start--;
  }
  if (start < 0) return null;
  const indent = /^(\s*)-/.exec(lines[start] ?? '')?.[1]?.length ?? 0;
  for (let i = start; i < lines.length; i++) {
    const l = lines[i] ?? '';
    if (i > start && (/^---\s*$/.test(l) || (/^\s*-\s/.test(l) && (/^(\s*)-/.exec(l)?.[1]?.length ?? 0) <= indent) || /^\S/.test(l))) break;
    const key = /^\s*(?:-\s+)?key:\s*([a-z0-9][a-z0-9-]*)\s*$/.exec(l)?.[1];
    if (key) return key;
  }
  return null;
}

/**
 * Agent and host names after `@`, in the text a person writes for agents (the Markdown body, a detail, the
 * objective): the file format has no host or agent field, because no goal or todo in the kernel has one (an agent
 * claims a todo itself; a host is chosen per run), so names are completed where the file is prose.
 */
function mentions(a: Analysis): CompletionItem[] {
  const agents = a.store ? a.store.read((db) => listAgents(db)).filter((agent) => agent.kind !== 'human') : [];
  return [
    ...agents.map((agent) => ({
      label: agent.name,
      kind: CompletionItemKind.Variable,
      sortText: `0${agent.name}`,
      detail: `${agent.kind} agent, last seen ${relativeTime(agent.lastSeen, a.nowMs)}${agent.holding.length ? `, holding ${agent.holding.join(', ')}` : ''}`,
    })),
    ...Object.entries(DEFAULT_HOSTS)
      .filter(([name]) => !agents.some((agent) => agent.name === name))
      .map(([name, command]) => ({
        label: name,
        kind: CompletionItemKind.Module,
        sortText: `1${name}`,
        detail: command ? `host: ${command}` : 'host: your own runner (loopx.hosts.custom.command)',
      })),
  ];
}

/** Keys already written at the top level of the front matter (read from the lines: the YAML may be half typed). */
function topLevelKeys(lines: readonly string[]): string[] {
  const end = lines.findIndex((l, i) => i > 0 && /^---\s*$/.test(l));
  return lines.slice(1, end === -1 ? undefined : end).flatMap((l) => /^([A-Za-z]+):/.exec(l)?.[1] ?? []);
}

/** Workspace paths for scope: the entries of the folder typed so far (dot folders and .loopx left out). */
function scopeCompletions(a: Analysis, before: string): CompletionItem[] {
  if (!a.store) return [];
  const typed = /([^\s[,'"]*)$/.exec(before)?.[1] ?? '';
  const dir = typed.includes('/') ? typed.slice(0, typed.lastIndexOf('/') + 1) : '';
  if (dir.split('/').includes('..')) return [];
  try {
    return readdirSync(join(a.store.root, dir), { withFileTypes: true })
      .filter((e) => !e.name.startsWith('.') && e.name !== 'node_modules')
      .slice(0, 200)
      .map((e) => ({
        label: `${dir}${e.name}${e.isDirectory() ? '/' : ''}`,
        kind: e.isDirectory() ? CompletionItemKind.Folder : CompletionItemKind.File,
        ...(e.isDirectory() ? { insertText: `${dir}${e.name}/**` } : {}),
      }));
  } catch {
    return [];
  }
}

export function hover(a: Analysis, text: string, pos: Position): Hover | null {
  const markdown = (value: string): Hover => ({ contents: { kind: MarkupKind.Markdown, value } });
  const live = (key: string): Hover => {
    const todo = a.todos.get(key);
    if (!todo || !a.store) return markdown(`**${key}**: not in the store yet; Apply to store adds it.`);
    // Read afresh: a hover is about now, even if the store changed a moment after the last analysis.
    return markdown(a.store.kernel.read((db, now) => todoHover(db, getTodo(db, todo.id), now)));
  };
  for (const t of a.todoAt) if (t.range.start.line === pos.line) return live(t.key);
  const fm = (a.parsed.frontMatter ?? {}) as { todos?: { after?: unknown }[] };
  for (const [i, t] of (Array.isArray(fm.todos) ? fm.todos : []).entries()) {
    const after = Array.isArray(t?.after) ? t.after : [];
    for (const [j, ref] of after.entries()) {
      const range = a.parsed.rangeOf(['todos', i, 'after', j]);
      if (range && within(range, pos) && typeof ref === 'string') return live(ref);
    }
  }
  const line = text.split(/\r?\n/)[pos.line] ?? '';
  if (/^(title|goal):/.test(line)) {
    if (!a.goal || !a.store) return markdown('This goal is not in the store yet: Apply to store creates it.');
    const goal = a.goal;
    return markdown(a.store.kernel.read((db, now) => goalHover(db, getGoal(db, goal.id), now)));
  }
  const key = /^\s*(?:-\s+)?([A-Za-z]+):/.exec(line)?.[1];
  return key && KEY_DOCS[key] && pos.character <= line.indexOf(key) + key.length ? markdown(`\`${key}\`: ${KEY_DOCS[key]}`) : null;
}

/**
 * Which editor asks: the extension's client says `loopxClient: 'vscode'` (initialization options) and has the LoopX
 * commands the lenses run; any other editor (neovim, Helix, Zed…) gets lenses that say what is true and what to do,
 * with no command it does not have.
 */
export type EditorKind = 'vscode' | 'other';

export function codeLenses(a: Analysis, uri: string, editor: EditorKind = 'vscode'): CodeLens[] {
  if (!a.store) return [];
  const top = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  const errors = a.diagnostics.filter((d) => d.severity === 1).length;
  const lenses: CodeLens[] = [];
  const lens = (range: Range, title: string, command = '', args: unknown[] = []) =>
    lenses.push({ range, command: { title, command, arguments: args } });
  if (errors > 0) lens(top, `${errors} problem${errors === 1 ? '' : 's'} to fix before applying`);
  else if (a.plan && (a.plan.changeCount > 0 || a.plan.relink)) {
    const n = a.plan.changeCount;
    const what = `${n === 0 ? 'link the file' : `${n} change${n === 1 ? '' : 's'}`}`;
    if (editor === 'vscode') lens(top, `Apply to store · ${what}`, APPLY_COMMAND, [inFolder(a.store.root, uri)]);
    // Applying is a person's act through a human channel: elsewhere that is a terminal, which asks before it writes.
    else lens(top, `Not applied · ${what}: loopx goal apply ${a.path ?? 'FILE'} in a terminal`);
  } else if (a.plan) lens(top, `In sync with ${a.goal?.id ?? 'the store'}`);
  if (editor === 'vscode') {
    lens(top, 'Open Board', 'loopx.openBoard', [inFolder(a.store.root)]);
    if (a.goal) lens(top, 'Run Turn', 'loopx.runTurn', [inFolder(a.store.root, { goalId: a.goal.id })]);
  }
  for (const t of a.todoAt) {
    const todo = a.todos.get(t.key);
    lens({ start: t.range.start, end: t.range.start }, todo ? todoStatusLine(todo, a.nowMs) : 'new: Apply to store adds it');
  }
  return lenses;
}

export function codeActions(
  uri: string,
  diagnostics: readonly Diagnostic[],
  root: string | null,
  editor: EditorKind = 'vscode',
): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const d of diagnostics) {
    const data = d.data as { kind?: string; suggestion?: string } | DriftData | undefined;
    if (data?.kind === 'rename' && 'suggestion' in data && data.suggestion) {
      actions.push({
        title: `Change to '${data.suggestion}'`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        isPreferred: true,
        edit: { changes: { [uri]: [{ range: d.range, newText: data.suggestion }] } },
      });
    }
    if (data?.kind === 'drift') {
      const drift = data as DriftData;
      if (drift.valueRange) {
        actions.push({
          title: "Take the store's value into the file",
          kind: CodeActionKind.QuickFix,
          diagnostics: [d],
          edit: { changes: { [uri]: [{ range: drift.valueRange, newText: drift.storeText }] } },
        });
      }
      if (editor === 'vscode')
        actions.push({
          title: 'Apply the file to the store',
          kind: CodeActionKind.QuickFix,
          diagnostics: [d],
          command: { title: 'Apply to store', command: APPLY_COMMAND, arguments: [root ? inFolder(root, uri) : uri] },
        });
    }
  }
  return actions;
}

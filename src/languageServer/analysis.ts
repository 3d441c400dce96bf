import { existsSync } from 'node:fs';
import { join, relative as relativePath, sep } from 'node:path';
import { type Diagnostic, DiagnosticSeverity } from 'vscode-languageserver';
import type { SqliteDb } from '../kernel/db/sqliteDb';
import { LoopxError } from '../kernel/errors';
import { type Goal, type Todo, isTerminalStatus } from '../kernel/model';
import { type FieldChange, type GoalPlan, planGoalSpec } from '../kernel/goals/goalSpec/plan';
import type { GoalFileDiagnostic, Range } from '../goalFile/diagnostics';
import { type ParsedGoalFile, type PathSegment, parseGoalFile } from '../goalFile/parse';
import type { FrontMatterParser } from '../goalFile/frontMatterYaml';
import { formatFieldValue } from './yamlValue';
import { lastChange } from '../kernel/readModels/todoCard';
import { relativeTime } from '../shared/timeWords';
import type { OpenStore, StoreRegistry } from './storeRegistry';
import { findGoal } from '../kernel/goals/goalQueries';
import { findGoalTodo } from '../kernel/todos/todoQueries';

/** Everything the features need about one version of one goal file, computed once per change. */
export interface Analysis {
  parsed: ParsedGoalFile;
  diagnostics: Diagnostic[];
  store: OpenStore | null;
  /** Workspace-relative path, as the store links goals to files. */
  path: string | null;
  goal: Goal | null;
  /** Live todos of the goal, by the file's keys (matched by key, else by the file's `id:`). */
  todos: Map<string, Todo>;
  /** Where each todo of the file is: its index and the range of its key. */
  todoAt: { key: string; index: number; range: Range }[];
  plan: GoalPlan | null;
  nowMs: number;
}

export interface DriftData {
  kind: 'drift';
  /** The store's value as the YAML text that replaces the field's value. */
  storeText: string;
  /** Where the field's value is in the file, or null when the file leaves it out (nothing to replace). */
  valueRange: Range | null;
}

/** The server checks what "Apply to store" would do: applied by the person in VS Code, a human channel. */
const EDITOR = { name: 'you', kind: 'human', channel: 'vscode' } as const;

const SEVERITY = { error: DiagnosticSeverity.Error, warning: DiagnosticSeverity.Warning, information: DiagnosticSeverity.Information };

function toLsp(d: GoalFileDiagnostic): Diagnostic {
  return {
    severity: SEVERITY[d.severity],
    range: d.range,
    message: d.message,
    code: d.code,
    source: 'loopx',
    ...(d.suggestion ? { data: { kind: 'rename', suggestion: d.suggestion } } : {}),
  };
}

/** `parser` is the document's own, kept across its versions, so an edit re-parses only the todos it touched. */
export function analyze(text: string, filePath: string, registry: StoreRegistry, nowMs = Date.now(), parser?: FrontMatterParser): Analysis {
  const parsed = parseGoalFile(text, parser);
  const diagnostics = parsed.diagnostics.map(toLsp);
  const { store, problem } = registry.forFile(filePath);
  const todoAt = todoLocations(parsed);
  const base: Analysis = { parsed, diagnostics, store, path: null, goal: null, todos: new Map(), todoAt, plan: null, nowMs };
  if (problem)
    diagnostics.push({
      severity: DiagnosticSeverity.Warning,
      range: firstLine(),
      message: problem,
      source: 'loopx',
      code: 'store_unavailable',
    });
  if (!store) return base;
  const path = toPosix(relativePath(store.root, filePath));
  const live = store.read((db) => {
    const { goal, todos } = liveMatch(db, path, parsed.frontMatter);
    let plan: GoalPlan | null = null;
    if (parsed.spec) {
      try {
        plan = planGoalSpec(db, parsed.spec, path, EDITOR).plan;
        diagnostics.push(...driftDiagnostics(db, plan, parsed, goal, todos, nowMs));
      } catch (error) {
        if (!(error instanceof LoopxError)) throw error;
        diagnostics.push({
          severity: DiagnosticSeverity.Error,
          range: parsed.rangeOf(['goal']) ?? firstLine(),
          message: `${error.message}${error.hint ? ` (${error.hint})` : ''}`,
          source: 'loopx',
          code: error.code,
        });
      }
    }
    return { goal, todos, plan };
  });
  diagnostics.push(...scopeDiagnostics(parsed, store.root, live.goal?.scope ?? []));
  return { ...base, path, ...live };
}

function firstLine(): Range {
  return { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } };
}

function toPosix(p: string): string {
  return sep === '/' ? p : p.split(sep).join('/');
}

function todoLocations(parsed: ParsedGoalFile): Analysis['todoAt'] {
  const todos = (parsed.frontMatter as { todos?: unknown } | null)?.todos;
  if (!Array.isArray(todos)) return [];
  return todos.flatMap((t, index) => {
    const key = (t as { key?: unknown } | null)?.key;
    const range = parsed.rangeOf(['todos', index, 'key']);
    return typeof key === 'string' && range ? [{ key, index, range }] : [];
  });
}

/** The goal and todos the file means, even while it has errors (hover and lenses keep working as you type). */
function liveMatch(db: SqliteDb, path: string, frontMatter: unknown): { goal: Goal | null; todos: Map<string, Todo> } {
  const fm = (frontMatter ?? {}) as { goal?: unknown; todos?: unknown };
  const goal = findGoal(db, { filePath: path }) ?? (typeof fm.goal === 'string' ? findGoal(db, { id: fm.goal }) : undefined);
  const todos = new Map<string, Todo>();
  if (!goal) return { goal: null, todos };
  for (const t of Array.isArray(fm.todos) ? fm.todos : []) {
    const { key, id } = (t ?? {}) as { key?: unknown; id?: unknown };
    if (typeof key !== 'string') continue;
    const found = findGoalTodo(db, goal.id, { key }) ?? (typeof id === 'string' ? findGoalTodo(db, goal.id, { id }) : undefined);
    if (found) todos.set(key, found);
  }
  return { goal, todos };
}

const GOAL_FIELD_PATH: Record<string, PathSegment[]> = {
  'quota.turnsPerWindow': ['quota', 'turns'],
  'quota.windowHours': ['quota', 'window'],
  'quota.maxConcurrent': ['quota', 'maxConcurrent'],
  'quota.cooldownSeconds': ['quota', 'cooldown'],
  'quota.tokensPerWindow': ['quota', 'tokens'],
  'quota.dollarsPerWindow': ['quota', 'dollars'],
};

/** Information, not errors: the store moved since the last apply; the file is never rewritten by loopx. */
function driftDiagnostics(
  db: SqliteDb,
  plan: GoalPlan,
  parsed: ParsedGoalFile,
  goal: Goal | null,
  todos: Map<string, Todo>,
  nowMs: number,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const push = (
    change: FieldChange,
    path: PathSegment[],
    fallback: PathSegment[],
    who: { actor: string; at: string } | null,
    subject: string,
  ) => {
    const valueRange = parsed.rangeOf(path);
    const exact = valueRange !== null && locatedExactly(parsed, path);
    const since = who ? ` since ${who.actor} changed it ${relativeTime(who.at, nowMs)}` : '';
    const data: DriftData = { kind: 'drift', storeText: formatFieldValue(path, change.from), valueRange: exact ? valueRange : null };
    out.push({
      severity: DiagnosticSeverity.Information,
      range: (exact ? valueRange : parsed.rangeOf(fallback)) ?? firstLine(),
      message: `${subject}: the store has ${change.field.replace('quota.', '')} ${show(change.from)}${since}; applying the file puts back ${show(change.to)}`,
      source: 'loopx',
      code: 'drift',
      data,
    });
  };
  // `after` lists store ids in the store and keys in the file: show and write keys where the file has them.
  const keyOf = new Map([...todos].map(([key, t]) => [t.id, key]));
  const asFile = (c: FieldChange): FieldChange =>
    c.field === 'after'
      ? { ...c, from: (c.from as string[]).map((id) => keyOf.get(id) ?? id), to: (c.to as string[]).map((id) => keyOf.get(id) ?? id) }
      : c;
  const goalWho = goal ? lastChange(db, { goalId: goal.id }) : null;
  for (const c of plan.goalChanges) if (c.drift) push(c, GOAL_FIELD_PATH[c.field] ?? [c.field], ['title'], goalWho, goal?.id ?? 'the goal');
  for (const t of [...plan.changed, ...plan.skipped]) {
    const index = (parsed.spec?.todos ?? []).findIndex((s) => s.key === t.key);
    const todo = todos.get(t.key);
    for (const c of t.changes) {
      if (!c.drift && !isTerminalStatus(t.status)) continue;
      if (isTerminalStatus(t.status)) {
        out.push({
          severity: DiagnosticSeverity.Information,
          range: parsed.rangeOf(['todos', index, 'key']) ?? firstLine(),
          source: 'loopx',
          code: 'finished',
          message: `${t.id} is ${t.status}: the file's ${c.field} is not applied to it (the store keeps its history)`,
        });
        continue;
      }
      push(asFile(c), ['todos', index, c.field], ['todos', index, 'key'], todo ? lastChange(db, { todoId: todo.id }) : null, t.id ?? t.key);
    }
  }
  return out;
}

/** rangeOf falls back to the nearest parent; a quick fix may only replace the field's own value. */
function locatedExactly(parsed: ParsedGoalFile, path: PathSegment[]): boolean {
  let value: unknown = parsed.frontMatter;
  for (const s of path) value = value && typeof value === 'object' ? (value as Record<PathSegment, unknown>)[s] : undefined;
  return value !== undefined;
}

function show(v: unknown): string {
  return Array.isArray(v) ? (v.length ? v.join(', ') : 'none') : JSON.stringify(v);
}

/**
 * A scope entry whose fixed part (before the first wildcard) names nothing in the workspace matches no file yet: a
 * warning for an entry the file adds (a typo shows before it is applied), a hint for one the goal already has (the
 * person chose it, in New Goal or an earlier apply, for work still to come: not a warning every time the file opens).
 */
function scopeDiagnostics(parsed: ParsedGoalFile, root: string, goalScope: readonly string[]): Diagnostic[] {
  const scope = (parsed.frontMatter as { scope?: unknown } | null)?.scope;
  const entries =
    typeof scope === 'string' ? [[scope, ['scope']] as const] : Array.isArray(scope) ? scope.map((s, i) => [s, ['scope', i]] as const) : [];
  const out: Diagnostic[] = [];
  for (const [entry, path] of entries) {
    if (typeof entry !== 'string' || entry.trim() === '') continue;
    const fixed = entry.split('/').filter((part) => !/[*?[\]{}!]/.test(part));
    const cut = entry.split('/').findIndex((part) => /[*?[\]{}!]/.test(part));
    const prefix = (cut === -1 ? fixed : entry.split('/').slice(0, cut)).join('/');
    if (prefix === '' || existsSync(join(root, prefix))) continue;
    const chosen = goalScope.includes(entry);
    out.push({
      severity: chosen ? DiagnosticSeverity.Hint : DiagnosticSeverity.Warning,
      range: parsed.rangeOf(path as unknown as PathSegment[]) ?? firstLine(),
      source: 'loopx',
      code: 'scope_matches_nothing',
      message: `scope \`${entry}\` matches no file yet: ${prefix} does not exist in the workspace`,
    });
  }
  return out;
}

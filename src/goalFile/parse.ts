import { FrontMatterParser, type FrontMatterYaml, type PathSegment } from './frontMatterYaml';
import type { GoalSpec } from '../kernel/goals/goalSpec/spec';
import { type GoalFileDiagnostic, type Range, didYouMean } from './diagnostics';
import { type FrontMatter, GOAL_KEYS, type LooseFrontMatter, QUOTA_KEYS, TODO_KEYS, frontMatterSchema } from './schema';
import { type RangeOf, goalFileSeconds, lintFrontMatter } from './lint';

/** Goal files are `*.goal.md`; the convention is `loopx/<slug>.goal.md` at the workspace root. */
export const GOAL_FILE_SUFFIX = '.goal.md';
export const MAX_GOAL_FILE_BYTES = 1024 * 1024;

export type { PathSegment };

export interface ParsedGoalFile {
  /** The spec the kernel applies; null while the file has errors. */
  spec: GoalSpec | null;
  diagnostics: GoalFileDiagnostic[];
  /** The front matter as parsed (what validation saw), for completion and hover; null when it is not YAML at all. */
  frontMatter: unknown;
  rangeOf: RangeOf;
  /** Zero-based lines the front matter spans (the `---` fences excluded), or null when there is none. */
  frontMatterLines: { start: number; end: number } | null;
}

const WHOLE_FIRST_LINE: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } };

function problem(message: string, code: string, range: Range = WHOLE_FIRST_LINE): GoalFileDiagnostic {
  return { severity: 'error', range, message, code };
}

/**
 * Parses and validates a goal file. Never throws for bad input: every problem is a diagnostic with a position.
 * A caller that parses versions of one file (the language server, per document) passes the same `parser`, which
 * re-parses only the todos an edit touched.
 */
export function parseGoalFile(source: string, parser: { parse(text: string): FrontMatterYaml } = new FrontMatterParser()): ParsedGoalFile {
  const none = (diagnostics: GoalFileDiagnostic[]): ParsedGoalFile => ({
    spec: null,
    diagnostics,
    frontMatter: null,
    rangeOf: () => null,
    frontMatterLines: null,
  });
  const bytes = Buffer.byteLength(source, 'utf8');
  if (bytes > MAX_GOAL_FILE_BYTES) {
    return none([problem(`the file is ${(bytes / 1048576).toFixed(1)} MB; a goal file may be at most 1 MB`, 'too_large')]);
  }
  const text = source.startsWith('\uFEFF') ? source.slice(1) : source;
  const fence = /^---[ \t]*\r?\n/.exec(text);
  if (!fence) return none([problem('a goal file starts with a `---` line, then YAML front matter, then `---`', 'no_front_matter')]);
  const rest = text.slice(fence[0].length);
  const end = /(^|\n)---[ \t]*(\r?\n|$)/.exec(rest);
  if (!end) return none([problem('the front matter is not closed: add a `---` line after it', 'unclosed_front_matter')]);
  const yamlText = rest.slice(0, end.index + (end[1] ? 1 : 0));
  const body = rest.slice(end.index + end[0].length);
  const lineOffset = 1;
  const doc = parser.parse(yamlText);
  const lineStarts = [0];
  for (let i = yamlText.indexOf('\n'); i !== -1; i = yamlText.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const position = (offset: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((lineStarts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + lineOffset, character: offset - (lineStarts[lo] as number) };
  };
  const toRange = (from: number, to: number): Range => ({ start: position(from), end: position(Math.max(from, to)) });
  const frontMatterLines = { start: lineOffset, end: lineOffset + lineStarts.length - 1 };
  const rangeOf = (path: readonly PathSegment[], options: { key?: boolean } = {}): Range | null => {
    const at = doc.locate(path, options.key ?? false);
    return at ? toRange(at[0], at[1]) : null;
  };
  const diagnostics: GoalFileDiagnostic[] = doc.errors.map((e) => problem(e.message, 'yaml_syntax', toRange(e.from, e.to)));
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (error) {
    // What `yaml` still throws while building the value: aliases that expand past its limit (a "billion laughs").
    if (!(error instanceof ReferenceError)) throw error;
    diagnostics.push(problem(ALIASES_EXPAND, 'yaml_syntax'));
    value = null;
  }
  const damaged = value === null && diagnostics.length > 0 ? [[]] : doc.damaged;
  if (damaged.some((part) => part.length === 0)) return { ...none(diagnostics), rangeOf, frontMatterLines };
  // An `after` entry may name a todo whose key is in a part a YAML error damaged: not called unknown then.
  const hidden = damaged.map((part) => {
    const at = doc.locate(part, false);
    return at ? yamlText.slice(at[0], at[1]) : '';
  });
  const checked = checkFrontMatter(value ?? {}, damaged, rangeOf, (key) => hidden.some((text) => mentions(text, key)));
  diagnostics.push(...checked.diagnostics);
  diagnostics.sort(byPosition);
  const spec = checked.valid && !diagnostics.some((d) => d.severity === 'error') ? toSpec(checked.valid, body) : null;
  return { spec, diagnostics, frontMatter: checked.frontMatter, rangeOf, frontMatterLines };
}

/**
 * The shape (zod) and the checks past it (lint), every problem at once: what fails the shape is reported and left
 * out, and the rest is checked as usual, so an unknown key does not hide an `after` entry that names no todo. Parts a
 * YAML error damaged are left out first (holes keep the todos' places) and nothing inside them is reported.
 */
function checkFrontMatter(
  value: unknown,
  damaged: readonly PathSegment[][],
  rangeOf: ParsedGoalFile['rangeOf'],
  mayBeHiddenKey: (key: string) => boolean,
): { diagnostics: GoalFileDiagnostic[]; frontMatter: unknown; valid: FrontMatter | null } {
  const frontMatter = withoutParts(value, damaged);
  const result = frontMatterSchema().safeParse(frontMatter);
  if (result.success) return { diagnostics: lintFrontMatter(result.data, rangeOf, mayBeHiddenKey), frontMatter, valid: result.data };
  // An issue inside a damaged part echoes the YAML error (a todo left out is "not a mapping"): already said.
  const issues = result.error.issues.filter((issue) => !damaged.some((part) => startsWith(issue.path, part)));
  const diagnostics = issues.flatMap((issue) => issueDiagnostics(issue, frontMatter, rangeOf));
  const invalid = issues.flatMap((issue) => invalidPaths(issue, frontMatter));
  if (!invalid.some((path) => path.length === 0)) {
    const rest = withoutParts(frontMatter, invalid) as LooseFrontMatter;
    diagnostics.push(...lintFrontMatter(rest, rangeOf, mayBeHiddenKey));
  }
  return { diagnostics, frontMatter, valid: null };
}

const ALIASES_EXPAND =
  'aliases (`*name`) expand to too large a value: a goal file may repeat an anchored value at most 100 times, nested ones multiplied';

function byPosition(a: GoalFileDiagnostic, b: GoalFileDiagnostic): number {
  return a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character;
}

function startsWith(path: readonly PropertyKey[], part: readonly PathSegment[]): boolean {
  return part.every((segment, i) => path[i] === segment);
}

/** Whether a damaged part's text may hold this todo key (as a whole word: keys are slugs). */
function mentions(text: string, key: string): boolean {
  for (let i = text.indexOf(key); i !== -1; i = text.indexOf(key, i + 1)) {
    if (!/[a-z0-9-]/.test(text[i - 1] ?? ' ') && !/[a-z0-9-]/.test(text[i + key.length] ?? ' ')) return true;
  }
  return false;
}

/**
 * The value without these paths (list entries become holes, so the others keep their indexes). Only the mappings and
 * lists along the paths are copied: the value itself is left as it is.
 */
function withoutParts(value: unknown, paths: readonly (readonly PathSegment[])[]): unknown {
  const copies = new Set<object>();
  const copyOf = (node: object): Record<PathSegment, unknown> => {
    const copy = Array.isArray(node) ? node.slice() : { ...node };
    copies.add(copy);
    return copy as Record<PathSegment, unknown>;
  };
  if (paths.length === 0 || !value || typeof value !== 'object') return value;
  const root = copyOf(value);
  for (const path of paths) {
    let parent: Record<PathSegment, unknown> | null = root;
    for (const segment of path.slice(0, -1)) {
      const child: unknown = parent[segment];
      if (!child || typeof child !== 'object') {
        parent = null; // nothing there to leave out
        break;
      }
      parent = parent[segment] = copies.has(child) ? (child as Record<PathSegment, unknown>) : copyOf(child);
    }
    if (parent) delete parent[path[path.length - 1] as PathSegment];
  }
  return root;
}

const RECURRENCE = new Set(['every', 'at', 'cron', 'tz']);

/** Where an issue's value is, to leave it out of what lint checks; a todo key that is no slug stays (`after` names it). */
function invalidPaths(raw: unknown, root: unknown): PathSegment[][] {
  const issue = raw as Issue;
  const path = issue.path.filter((s): s is PathSegment => typeof s === 'string' || typeof s === 'number');
  if (issue.code === 'unrecognized_keys') return (issue.keys ?? []).map((k) => [...path, k]);
  if (path[0] === 'todos' && path.length === 3 && path[2] === 'key' && typeof valueAt(root, path) === 'string') return [];
  // `every`, `at`, `cron` and `tz` are checked together: with one of them wrong, the others' checks would be guesses.
  if (path[0] === 'todos' && path.length === 3 && RECURRENCE.has(path[2] as string))
    return [...RECURRENCE].map((f) => [...path.slice(0, 2), f]);
  return [path];
}

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  int: 'a whole number',
  number: 'a number',
  array: 'a list',
  object: 'a mapping',
};

const WHOLE_NUMBERS = new Set<PathSegment>(['turns', 'maxConcurrent', 'priority', 'tokens']);

function expectedWords(path: readonly PathSegment[], expected: string | undefined): string {
  if (expected === 'number' && WHOLE_NUMBERS.has(path[path.length - 1] as PathSegment)) return 'a whole number';
  return TYPE_WORDS[expected ?? ''] ?? String(expected);
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return 'text';
  if (typeof value === 'number') return Number.isInteger(value) ? 'a whole number' : 'a number';
  return typeof value;
}

function valueAt(root: unknown, path: readonly PathSegment[]): unknown {
  let v = root;
  for (const s of path) v = v && typeof v === 'object' ? (v as Record<PathSegment, unknown>)[s] : undefined;
  return v;
}

function fieldName(path: readonly PathSegment[]): string {
  return path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('') || 'the front matter';
}

interface Issue {
  code: string;
  path: PropertyKey[];
  expected?: string;
  keys?: string[];
  minimum?: unknown;
  maximum?: unknown;
  format?: string;
}

function issueDiagnostics(raw: unknown, root: unknown, rangeOf: ParsedGoalFile['rangeOf']): GoalFileDiagnostic[] {
  const issue = raw as Issue;
  const path = issue.path.filter((s): s is PathSegment => typeof s === 'string' || typeof s === 'number');
  const name = fieldName(path);
  const at = (p: readonly PathSegment[], key = false) => rangeOf(p, { key }) ?? WHOLE_FIRST_LINE;
  const value = valueAt(root, path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const known = path.length === 0 ? GOAL_KEYS : path[path.length - 1] === 'quota' ? QUOTA_KEYS : TODO_KEYS;
      return (issue.keys ?? []).map((k) => {
        const suggestion = didYouMean(k, known);
        const hint = suggestion ? `; did you mean \`${suggestion}\`?` : `; known keys: ${known.join(', ')}`;
        return { ...problem(`unknown key \`${k}\`${hint}`, 'unknown_key', at([...path, k], true)), ...(suggestion ? { suggestion } : {}) };
      });
    }
    case 'invalid_type':
      if (value === undefined) return [problem(`\`${name}\` is required`, 'missing', at(path.slice(0, -1)))];
      return [problem(`\`${name}\` should be ${expectedWords(path, issue.expected)}, not ${describe(value)}`, 'wrong_type', at(path))];
    case 'invalid_union':
      return [
        problem(
          `\`${name}\` should be ${path[0] === 'scope' ? 'a glob or a list of globs' : 'a duration like 24h or 10m'}, not ${describe(value)}`,
          'wrong_type',
          at(path),
        ),
      ];
    case 'too_big':
    case 'too_small':
      return [problem(`\`${name}\` must be ${rangeWords(path)}, not ${String(value)}`, 'out_of_range', at(path))];
    case 'invalid_format':
      return [problem(formatWords(path, value), 'bad_format', at(path))];
    default:
      return [problem(`\`${name}\` is not valid`, 'invalid', at(path))];
  }
}

function rangeWords(path: readonly PathSegment[]): string {
  const last = path[path.length - 1];
  return last === 'priority' ? '0 (highest), 1, 2 or 3' : 'within its range';
}

function formatWords(path: readonly PathSegment[], value: unknown): string {
  const last = path[path.length - 1];
  if (last === 'key') return `todo key ${JSON.stringify(value)} must be a slug: lower-case letters, digits and -, up to 64`;
  if (last === 'id') return `${JSON.stringify(value)} is not a todo id (T1, T2, …)`;
  return `${JSON.stringify(value)} is not a goal id (G1, G2, …)`;
}

/** Front matter that passed every check, as the spec the kernel applies. */
function toSpec(fm: FrontMatter, body: string): GoalSpec {
  const q = fm.quota ?? {};
  return {
    ...(fm.goal ? { goal: fm.goal } : {}),
    title: fm.title,
    objective: fm.objective ?? '',
    scope: fm.scope === undefined ? [] : typeof fm.scope === 'string' ? [fm.scope] : fm.scope,
    quota: {
      ...(q.turns !== undefined ? { turnsPerWindow: q.turns } : {}),
      ...(q.window !== undefined ? { windowHours: goalFileSeconds(q.window) / 3600 } : {}),
      ...(q.maxConcurrent !== undefined ? { maxConcurrent: q.maxConcurrent } : {}),
      ...(q.cooldown !== undefined ? { cooldownSeconds: goalFileSeconds(q.cooldown) } : {}),
      ...(q.tokens !== undefined ? { tokensPerWindow: q.tokens } : {}),
      ...(q.dollars !== undefined ? { dollarsPerWindow: q.dollars } : {}),
    },
    background: body.replace(/^\s*\n/, '').trimEnd(),
    ...(fm.check !== undefined ? { check: fm.check } : {}),
    ...(fm.allowedChecks !== undefined ? { allowedChecks: fm.allowedChecks } : {}),
    // `worktree: ''` reads as `worktree:` (null): off.
    ...(fm.worktree !== undefined ? { worktree: fm.worktree?.trim() ? fm.worktree.trim() : null } : {}),
    ...(fm.worktreeSetup !== undefined ? { worktreeSetup: fm.worktreeSetup?.trim() ? fm.worktreeSetup.trim() : null } : {}),
    ...(fm.review !== undefined ? { review: fm.review } : {}),
    todos: (fm.todos ?? []).map((t) => ({
      key: t.key,
      ...(t.id ? { id: t.id } : {}),
      title: t.title,
      detail: (t.detail ?? '').trimEnd(),
      priority: t.priority ?? 2,
      after: t.after ?? [],
      ...(t.check !== undefined ? { check: t.check } : {}),
      ...(t.review !== undefined ? { review: t.review } : {}),
      ...(t.every !== undefined || t.cron !== undefined
        ? {
            recurrence: {
              ...(t.every !== undefined ? { every: goalFileSeconds(t.every) } : {}),
              ...(t.at !== undefined ? { at: t.at } : {}),
              ...(t.cron !== undefined ? { cron: t.cron } : {}),
              ...(t.tz !== undefined ? { tz: t.tz } : {}),
            },
          }
        : {}),
    })),
  };
}

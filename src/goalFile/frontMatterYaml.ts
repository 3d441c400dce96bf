import { type Document, type Node, isMap, isPair, isScalar, isSeq } from 'yaml';
import { type PathSegment, type YamlProblem, damagedParts, readYaml } from './yamlDocument';

export type { PathSegment };

/** The front matter as YAML: its errors, its value, and where a path sits (offsets into the front matter text). */
export interface FrontMatterYaml {
  errors: YamlProblem[];
  /**
   * The parts of the value the errors leave unreliable (`['quota']`, `['todos', 2]`; `[]`: all of it). The rest is
   * what `yaml` read around the errors, checked as usual.
   */
  damaged: PathSegment[][];
  /** The value, or null when nothing could be read (nesting too deep). */
  toJS(): unknown;
  /** The offsets of the node at a path (its key with `key`), falling back to the nearest parent; null when none. */
  locate(path: readonly PathSegment[], key: boolean): [number, number] | null;
}

/** How much parsing the last call did: the tests read it to prove an edit re-parses only what changed. */
export interface ParseStats {
  mode: 'whole' | 'split';
  /** Todo items parsed by `yaml` in this call (not taken from the cache). */
  itemsParsed: number;
  itemsReused: number;
}

const MAX_ALIASES = { maxAliasCount: 100 };

/**
 * Parses front matter, reusing the previous call's work. A goal file's size is its `todos:` list, and `yaml`'s
 * parse of a whole 500-todo file is tens of milliseconds; so the list is cut into its items at their `- ` lines,
 * each item parsed on its own (cached by its exact text, so an edit re-parses only the item it touched) and the rest
 * of the front matter parsed without them. The result is the same as one parse of the whole text: anything the
 * split cannot vouch for (an error or warning in any part, an alias across items, tabs, a flow list) is parsed
 * whole, so every message and position comes from `yaml` itself.
 */
export class FrontMatterParser {
  private items = new Map<string, Document>();
  stats: ParseStats = { mode: 'whole', itemsParsed: 0, itemsReused: 0 };

  parse(text: string): FrontMatterYaml {
    const split = splitTodos(text);
    if (split) {
      const result = this.parseSplit(text, split);
      if (result) return result;
    }
    this.items = new Map();
    this.stats = { mode: 'whole', itemsParsed: 0, itemsReused: 0 };
    return parseWhole(text);
  }

  private parseSplit(text: string, split: Split): FrontMatterYaml | null {
    const previous = this.items;
    const next = new Map<string, Document>();
    let parsed = 0;
    const docs: Document[] = [];
    for (const [from, to] of split.items) {
      const slice = text.slice(from, to);
      let doc = next.get(slice) ?? previous.get(slice);
      if (!doc) {
        const read = readYaml(slice);
        parsed++;
        if (!read.doc || read.problems.length > 0) return null;
        doc = read.doc;
      }
      next.set(slice, doc);
      if (doc.warnings.length > 0 || !isSeq(doc.contents) || doc.contents.items.length !== 1) return null;
      docs.push(doc);
    }
    this.items = next;
    this.stats = { mode: 'split', itemsParsed: parsed, itemsReused: split.items.length - parsed };
    const cut = split.end - split.start;
    const read = readYaml(text.slice(0, split.start) + text.slice(split.end));
    const head = read.doc;
    if (!head || read.problems.length > 0 || head.warnings.length > 0 || !isMap(head.contents)) return null;
    const headTodos = head.contents.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === 'todos');
    if (!headTodos || (headTodos.value !== null && !(isScalar(headTodos.value) && headTodos.value.value === null))) return null;
    let value: Record<string, unknown>;
    let todos: unknown[];
    try {
      value = head.toJS(MAX_ALIASES) as Record<string, unknown>;
      todos = docs.map((d) => (d.toJS(MAX_ALIASES) as unknown[])[0]);
    } catch {
      return null;
    }
    const shift = (r: readonly number[]): [number, number] => {
      const at = (n: number) => (n >= split.start ? n + cut : n);
      return [at(r[0] as number), at(r[1] as number)];
    };
    const todosEnd = (headEnd: number) => {
      const last = docs.length - 1;
      const end = (((docs[last] as Document).contents as Node).range as number[])[1] as number;
      return Math.max(headEnd, end + (split.items[last] as [number, number])[0]);
    };
    return {
      errors: [],
      damaged: [],
      toJS: () => ({ ...value, todos }),
      locate(path, key) {
        if (path[0] === 'todos' && path.length > 1 && typeof path[1] === 'number' && docs[path[1]]) {
          const i = path[1];
          const node = locate(docs[i] as Document, [0, ...path.slice(2)], key);
          const base = (split.items[i] as [number, number])[0];
          return node?.range ? [node.range[0] + base, node.range[1] + base] : null;
        }
        if (path[0] === 'todos' && !(key && path.length === 1)) {
          const first = ((docs[0] as Document).contents as Node).range as [number, number, number];
          const last = ((docs[docs.length - 1] as Document).contents as Node).range as [number, number, number];
          return [first[0] + split.start, last[1] + (split.items[docs.length - 1] as [number, number])[0]];
        }
        const node = locate(head, path, key);
        if (!node?.range) return null;
        const at = shift(node.range);
        // The whole front matter ends where its last part does, which may be the last todo.
        if (node === head.contents) at[1] = todosEnd(at[1]);
        return at;
      },
    };
  }
}

/** One parse of the whole text (the reference the split must agree with; what `FrontMatterParser` falls back to). */
export function parseWhole(text: string): FrontMatterYaml {
  const { doc, problems } = readYaml(text);
  if (!doc) return { errors: problems, damaged: [[]], toJS: () => null, locate: () => null };
  return {
    errors: problems,
    damaged: damagedParts(doc, text, problems),
    toJS: () => doc.toJS(MAX_ALIASES),
    locate(path, key) {
      const node = locate(doc, path, key);
      return node?.range ? [node.range[0], node.range[1]] : null;
    },
  };
}

interface Split {
  /** Offsets of the todo items' block (from the first item's line to the end of the last). */
  start: number;
  end: number;
  items: [number, number][];
}

const CONTENT = /\S/;
const COMMENT_OR_BLANK = /^[ ]*(#.*)?\r?$/;

/** The `todos:` block list cut into items at its `- ` lines, or null when the text is not in that plain form. */
function splitTodos(text: string): Split | null {
  const lines: { from: number; text: string }[] = [];
  for (let from = 0; from < text.length;) {
    const nl = text.indexOf('\n', from);
    const to = nl === -1 ? text.length : nl + 1;
    lines.push({ from, text: text.slice(from, nl === -1 ? text.length : nl) });
    from = to;
  }
  const todosLines = lines.flatMap((l, i) => (/^todos:[ ]*(#.*)?\r?$/.test(l.text) ? [i] : []));
  if (todosLines.length !== 1) return null;
  let i = (todosLines[0] as number) + 1;
  while (i < lines.length && COMMENT_OR_BLANK.test((lines[i] as { text: string }).text)) i++;
  const first = /^( *)-( |\r?$)/.exec(lines[i]?.text ?? '');
  if (!first) return null;
  const indent = (first[1] as string).length;
  const itemStart = new RegExp(`^ {${indent}}-( |\\r?$)`);
  const items: [number, number][] = [];
  let end = i;
  for (; i < lines.length; i++) {
    const line = (lines[i] as { text: string }).text;
    if (line.includes('\t')) return null;
    if (COMMENT_OR_BLANK.test(line)) continue;
    const lead = line.search(CONTENT);
    if (itemStart.test(line)) {
      if (items.length > 0) (items[items.length - 1] as [number, number])[1] = (lines[i] as { from: number }).from;
      items.push([(lines[i] as { from: number }).from, -1]);
    } else if (lead <= indent) {
      break;
    }
    end = i;
  }
  const blockEnd = lines[end + 1]?.from ?? text.length;
  // Blank and comment lines after the last item stay with the rest of the text (they may come before a later key).
  (items[items.length - 1] as [number, number])[1] = blockEnd;
  const start = (items[0] as [number, number])[0];
  return { start, end: blockEnd, items };
}

/** The YAML node at a path: the value, or with `key` the key of the last segment. Falls back to the nearest parent. */
export function locate(doc: Document, path: readonly PathSegment[], key: boolean): Node | null {
  let node: unknown = doc.contents;
  let last: Node | null = (node as Node | null) ?? null;
  for (const [i, segment] of path.entries()) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === segment);
      if (!pair) return last;
      if (key && i === path.length - 1) return pair.key as Node;
      node = pair.value ?? pair.key;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
    } else {
      return last;
    }
    if (node) last = node as Node;
  }
  return last;
}

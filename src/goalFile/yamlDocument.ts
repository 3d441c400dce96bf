import { Composer, type Document, Lexer, type Node, Parser, Scalar, YAMLParseError, isAlias, isMap, isScalar, isSeq, visit } from 'yaml';
import type { CST } from 'yaml';

export type PathSegment = string | number;

/**
 * How deep lists and mappings may nest in a goal file. The format needs 4 (the front matter, `todos`, a todo, its
 * `after` list); `yaml` composes nodes recursively and runs out of stack somewhere past a few hundred levels, so the
 * limit is checked while the text is tokenised, before anything recurses.
 */
export const MAX_NESTING = 64;

export const TOO_DEEP = `lists and mappings nest more than ${MAX_NESTING} levels deep here; a goal file needs 4 (a todo's \`after\` list)`;

const OPTIONS = { prettyErrors: false, uniqueKeys: true } as const;

export interface YamlProblem {
  message: string;
  from: number;
  to: number;
}

/**
 * `parseDocument`, with two things a goal file needs said in words rather than thrown: nesting past `MAX_NESTING`
 * (refused while tokenising, so nothing recurses that deep; `doc` is then null) and an alias with no anchor before it
 * (reported at the alias and read as empty; `yaml` reports it only by throwing from `toJS`). Every other problem is
 * `yaml`'s own error, with the partial tree it keeps beside it.
 */
export function readYaml(text: string): { doc: Document | null; problems: YamlProblem[] } {
  const tokens: CST.Token[] = [];
  const parser = new Parser();
  // The documented way to drive the parser with a lexer of our own: one lexeme at a time, so its stack (one entry
  // per open collection, plus the document) can be checked as it grows.
  for (const lexeme of new Lexer().lex(text)) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    if (parser.stack.length > MAX_NESTING + 1) {
      const at = parser.offset - lexeme.length;
      return { doc: null, problems: [{ message: TOO_DEEP, from: at, to: at + lexeme.length }] };
    }
  }
  for (const token of parser.end()) tokens.push(token);
  let doc: Document | null = null;
  // As `parseDocument` does: the first document, and an error for any after it.
  for (const next of new Composer(OPTIONS).compose(tokens, true, text.length)) {
    if (!doc) doc = next;
    else {
      doc.errors.push(
        new YAMLParseError(next.range.slice(0, 2) as [number, number], 'MULTIPLE_DOCS', 'the front matter holds one YAML document'),
      );
      break;
    }
  }
  if (!doc) return { doc: null, problems: [] };
  const problems: YamlProblem[] = doc.errors.map((e) => ({
    message: e.code === 'RESOURCE_EXHAUSTION' ? TOO_DEEP : (e.message.split('\n')[0] as string),
    from: e.pos[0],
    to: e.pos[1],
  }));
  if (text.includes('*')) problems.push(...unresolvedAliases(doc));
  return { doc, problems };
}

/** Aliases with no anchor of their name before them, replaced by empty values (so `toJS` reads the rest). */
function unresolvedAliases(doc: Document): YamlProblem[] {
  const problems: YamlProblem[] = [];
  const anchors = new Set<string>();
  visit(doc, {
    Node(_key, node) {
      if (isAlias(node)) {
        if (anchors.has(node.source)) return undefined;
        const [from, to] = node.range ?? [0, 0];
        problems.push({ message: `the alias \`*${node.source}\` names no anchor: put \`&${node.source}\` on a value above it`, from, to });
        const empty = new Scalar(null);
        empty.range = node.range ?? null;
        return empty;
      }
      if (node.anchor) anchors.add(node.anchor);
      return undefined;
    },
  });
  return problems;
}

/**
 * The parts of the front matter a problem at these offsets leaves unreliable: the top-level entry it is in, or the
 * todo (`['todos', 2]`); `[]` when it is outside every entry (then nothing is reliable). An error is often reported
 * where the parser noticed it, just after the cause (an unclosed `[` at the next line), so the entry of the last
 * character before it counts too.
 */
export function damagedParts(doc: Document, text: string, problems: readonly YamlProblem[]): PathSegment[][] {
  const parts = new Map<string, PathSegment[]>();
  for (const p of problems) {
    let before = p.from - 1;
    while (before >= 0 && /\s/.test(text[before] as string)) before--;
    const found = [partAt(doc, p.from), before >= 0 ? partAt(doc, before) : null].filter((x): x is PathSegment[] => x !== null);
    for (const part of found.length > 0 ? found : [[]]) parts.set(JSON.stringify(part), part);
  }
  return [...parts.values()];
}

function partAt(doc: Document, offset: number): PathSegment[] | null {
  const root = doc.contents;
  if (!isMap(root)) return [];
  for (const pair of root.items) {
    const key = pair.key as Node | null;
    const value = pair.value as Node | null;
    const start = key?.range?.[0] ?? value?.range?.[0];
    const end = (value ?? key)?.range?.[2];
    if (start === undefined || end === undefined || offset < start || offset >= Math.max(end, start + 1)) continue;
    if (!isScalar(key) || (typeof key.value !== 'string' && typeof key.value !== 'number')) return [];
    if (key.value === 'todos' && isSeq(value)) {
      const index = value.items.findIndex((item) => {
        const r = (item as Node | null)?.range;
        return r !== undefined && r !== null && offset >= r[0] && offset < Math.max(r[2], r[0] + 1);
      });
      return index === -1 ? ['todos'] : ['todos', index];
    }
    return [key.value];
  }
  return null;
}

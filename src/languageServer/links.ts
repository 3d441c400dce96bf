import { fileURLToPath } from 'node:url';
import type { DocumentLink, Hover, Position } from 'vscode-languageserver';
import { MarkupKind } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { todoHover, todoStatusLine } from '../kernel/readModels/todoCard';
import { GOAL_FILE_SUFFIX } from '../goalFile/parse';
import { goalHover } from './goalHover';
import type { StoreRegistry } from './storeRegistry';
import { findGoal } from '../kernel/goals/goalQueries';
import { findTodo } from '../kernel/todos/todoQueries';

/** The extension's command that opens a todo (a read-only document) or a goal (its review packet). */
export const OPEN_COMMAND = 'loopx.openTodo';

const ID = /\b([GT][1-9][0-9]{0,9})\b/g;
// Where a comment starts in code: ids are linked only there (a `T1` in code is just a name).
const COMMENT_START = /\/\/|\/\*|^\s*\*|#|<!--|--/;

interface IdAt {
  id: string;
  line: number;
  start: number;
  end: number;
}

/** Goal and todo ids in Markdown and goal files anywhere, in other files only inside comments. */
export function findIds(doc: TextDocument): IdAt[] {
  const everywhere = doc.languageId === 'markdown' || doc.uri.endsWith(GOAL_FILE_SUFFIX);
  const found: IdAt[] = [];
  doc
    .getText()
    .split(/\r?\n/)
    .forEach((text, line) => {
      const from = everywhere ? 0 : (COMMENT_START.exec(text)?.index ?? -1);
      if (from < 0) return;
      for (const m of text.slice(from).matchAll(ID)) {
        const start = from + (m.index ?? 0);
        found.push({ id: m[1] as string, line, start, end: start + (m[1] as string).length });
      }
    });
  return found;
}

function commandUri(root: string, id: string): string {
  return `command:${OPEN_COMMAND}?${encodeURIComponent(JSON.stringify([{ loopxFolder: root, args: [id] }]))}`;
}

/** Links for the ids the store knows; an id it does not know is left as text. */
export function documentLinks(doc: TextDocument, registry: StoreRegistry): DocumentLink[] {
  if (!doc.uri.startsWith('file:')) return [];
  const ids = findIds(doc);
  if (ids.length === 0) return [];
  const { store } = registry.forFile(fileURLToPath(doc.uri));
  if (!store) return [];
  return store.kernel.read((db, now) => {
    return ids.flatMap((at) => {
      const todo = at.id.startsWith('T') ? findTodo(db, at.id) : undefined;
      const goal = at.id.startsWith('T') ? undefined : findGoal(db, { id: at.id });
      if (!todo && !goal) return [];
      const tooltip = todo ? todoStatusLine(todo, now) : `${at.id} ${goal?.title ?? ''}`;
      return [
        {
          range: { start: { line: at.line, character: at.start }, end: { line: at.line, character: at.end } },
          target: commandUri(store.root, at.id),
          tooltip,
        },
      ];
    });
  });
}

/** A hover on an id: the todo's live state, or the goal's quota and should-run. */
export function idHover(doc: TextDocument, pos: Position, registry: StoreRegistry): Hover | null {
  const at = findIds(doc).find((i) => i.line === pos.line && pos.character >= i.start && pos.character <= i.end);
  if (!at || !doc.uri.startsWith('file:')) return null;
  const { store } = registry.forFile(fileURLToPath(doc.uri));
  if (!store) return null;
  const value = store.kernel.read((db, now) => {
    if (at.id.startsWith('T')) {
      const todo = findTodo(db, at.id);
      return todo ? todoHover(db, todo, now) : null;
    }
    const goal = findGoal(db, { id: at.id });
    return goal ? goalHover(db, goal, now) : null;
  });
  return value ? { contents: { kind: MarkupKind.Markdown, value } } : null;
}

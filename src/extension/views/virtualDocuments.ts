import * as vscode from 'vscode';
import { type Evidence, evidenceBySeq } from '../../kernel/evidence/evidenceQueries';
import { evidenceTitle, renderEvidence } from './evidenceDocument';
import { renderStatusMd } from '../../runtime/projections/statusMd';
import { renderReviewPacket } from '../../kernel/readModels/reviewPacket';
import { todoHover } from '../../kernel/readModels/todoCard';
import { clean } from '../../protocol/display';
import { Disposable } from '../util/lifecycle';
import type { Folders } from '../folders';
import type { FolderServices } from '../folderServices';
import { findTodo } from '../../kernel/todos/todoQueries';
import { prepareChange } from '../../kernel/todos/review';
import { reviewBrief } from '../../kernel/todos/reviewBrief';
import { reviewBriefLines } from '../../kernel/turns/reviewPrompt';

export const EVIDENCE_SCHEME = 'loopx-evidence';
export const STATUS_SCHEME = 'loopx-status';
export const REVIEW_SCHEME = 'loopx-review';
export const TODO_SCHEME = 'loopx-todo';
/** A change under review as its reviewer reads it: read from git when opened (a snapshot, not redrawn on each change). */
export const REVIEW_CHANGE_SCHEME = 'loopx-review-change';

/**
 * Read-only documents rendered from the store: an evidence entry, the live status, a review packet, a todo.
 * Editing them is impossible. One provider per scheme, each with its own change event: VS Code ignores (and warns
 * about) a provider that fires a change for another scheme's document.
 */
export class VirtualDocuments extends Disposable {
  /** Each scheme's provider (tests read which documents each one says changed). */
  readonly providers = new Map<string, vscode.TextDocumentContentProvider & { readonly fire: (uri: vscode.Uri) => void }>();

  constructor(private readonly folders: Folders) {
    super();
    for (const scheme of [EVIDENCE_SCHEME, STATUS_SCHEME, REVIEW_SCHEME, TODO_SCHEME, REVIEW_CHANGE_SCHEME]) {
      const changed = this.register(new vscode.EventEmitter<vscode.Uri>());
      const provider = {
        onDidChange: changed.event,
        provideTextDocumentContent: (uri: vscode.Uri) => this.provide(uri),
        fire: (uri: vscode.Uri) => {
          if (uri.scheme === scheme) changed.fire(uri);
        },
      };
      this.providers.set(scheme, provider);
      this.register(vscode.workspace.registerTextDocumentContentProvider(scheme, provider));
    }
    const watched = new Set<FolderServices>();
    const follow = () => {
      for (const f of folders.all) {
        if (watched.has(f)) continue;
        watched.add(f);
        this.register(
          f.model.onDidChange(() => {
            // Only documents that are open, each through its own scheme's provider.
            // A change under review is read from git: redrawn when opened again, not on every write to the store.
            for (const doc of vscode.workspace.textDocuments)
              if (doc.uri.scheme !== REVIEW_CHANGE_SCHEME) this.providers.get(doc.uri.scheme)?.fire(doc.uri);
          }),
        );
      }
    };
    this.register(folders.onDidChange(follow));
    follow();
  }

  /** The folder a document is about: named in its query (`root=`), else the first one. */
  private folderOf(uri: vscode.Uri): FolderServices | undefined {
    const root = new URLSearchParams(uri.query).get('root');
    return (root ? this.folders.byRoot(root) : undefined) ?? this.folders.all[0];
  }

  private provide(uri: vscode.Uri): string {
    const folder = this.folderOf(uri);
    const kernel = folder?.session.kernel;
    if (uri.scheme === REVIEW_SCHEME) {
      const goal = new URLSearchParams(uri.query).get('goal') ?? undefined;
      return kernel ? kernel.read((db, now) => renderReviewPacket(db, now, goal)) : '# Review packet\n\nNo store in this workspace yet.\n';
    }
    if (uri.scheme === REVIEW_CHANGE_SCHEME) {
      const id = new URLSearchParams(uri.query).get('todo') ?? '';
      const found = kernel?.read((db) => findTodo(db, id));
      if (!kernel || !found) return `Todo ${clean(id)} was not found in this workspace's store.\n`;
      const change = prepareChange(kernel, found.id); // git, before the read
      const brief = kernel.read((db) => reviewBrief(db, found.id, change));
      return [`# The change of ${found.id} under review`, '', ...reviewBriefLines(brief), ''].join('\n');
    }
    if (uri.scheme === TODO_SCHEME) {
      const id = new URLSearchParams(uri.query).get('todo') ?? '';
      const todo = kernel?.read((db, now) => {
        const found = findTodo(db, id);
        return found ? todoHover(db, found, now) : null;
      });
      return todo ? `${todo}\n` : `Todo ${clean(id)} was not found in this workspace's store.\n`;
    }
    if (uri.scheme === STATUS_SCHEME) {
      const report = folder?.model.status();
      return report ? renderStatusMd(report) : '# loopx status\n\nNo store in this workspace yet.\n';
    }
    const seq = Number(new URLSearchParams(uri.query).get('seq'));
    const found = kernel?.read((db) => evidenceBySeq(db, seq));
    if (!found) return 'This evidence was not found in the store.\n';
    return renderEvidence(found.evidence, found.hash, Date.now());
  }
}

/** An evidence entry's document: titled by what it is about and says (the path), found by its event (the query). */
export function evidenceUri(evidence: Pick<Evidence, 'seq' | 'todoId' | 'goalId' | 'summary'>, root: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: EVIDENCE_SCHEME,
    path: `/${evidenceTitle(evidence)}.md`,
    query: new URLSearchParams({ seq: String(evidence.seq), root }).toString(),
  });
}

export function reviewUri(root: string, goalId?: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: REVIEW_SCHEME,
    path: '/review-packet.md',
    query: new URLSearchParams({ root, ...(goalId ? { goal: goalId } : {}) }).toString(),
  });
}

export function todoUri(root: string, todoId: string): vscode.Uri {
  return vscode.Uri.from({ scheme: TODO_SCHEME, path: `/${todoId}.md`, query: new URLSearchParams({ root, todo: todoId }).toString() });
}

export function reviewChangeUri(root: string, todoId: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: REVIEW_CHANGE_SCHEME,
    path: `/${todoId} change.md`,
    query: new URLSearchParams({ root, todo: todoId }).toString(),
  });
}

export function statusUri(root: string): vscode.Uri {
  return vscode.Uri.from({ scheme: STATUS_SCHEME, path: '/STATUS.md', query: new URLSearchParams({ root }).toString() });
}

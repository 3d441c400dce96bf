import * as vscode from 'vscode';
import { evidenceBySeq } from '../../kernel/queries/evidence';
import { renderStatusMd } from '../../kernel/projections/statusMd';
import { renderReviewPacket } from '../../kernel/projections/reviewPacket';
import { todoHover } from '../../kernel/projections/todoCard';
import { findTodo } from '../../kernel/queries/lookups';
import { clean } from '../../protocol/display';
import { Disposable } from '../util/lifecycle';
import type { Folders } from '../folders';
import type { FolderServices } from '../folderServices';

export const EVIDENCE_SCHEME = 'loopx-evidence';
export const STATUS_SCHEME = 'loopx-status';
export const REVIEW_SCHEME = 'loopx-review';
export const TODO_SCHEME = 'loopx-todo';

/** Read-only documents rendered from the store: an evidence entry, and the live status. Editing them is impossible. */
export class VirtualDocuments extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly changed = this.register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.changed.event;

  constructor(private readonly folders: Folders) {
    super();
    this.register(vscode.workspace.registerTextDocumentContentProvider(EVIDENCE_SCHEME, this));
    this.register(vscode.workspace.registerTextDocumentContentProvider(STATUS_SCHEME, this));
    this.register(vscode.workspace.registerTextDocumentContentProvider(REVIEW_SCHEME, this));
    this.register(vscode.workspace.registerTextDocumentContentProvider(TODO_SCHEME, this));
    const watched = new Set<FolderServices>();
    const follow = () => {
      for (const f of folders.all) {
        if (watched.has(f)) continue;
        watched.add(f);
        this.register(
          f.model.onDidChange(() => {
            this.changed.fire(statusUri(f.root));
            for (const doc of vscode.workspace.textDocuments) if (doc.uri.scheme === TODO_SCHEME) this.changed.fire(doc.uri);
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

  provideTextDocumentContent(uri: vscode.Uri): string {
    const folder = this.folderOf(uri);
    const kernel = folder?.session.kernel;
    if (uri.scheme === REVIEW_SCHEME) {
      const goal = new URLSearchParams(uri.query).get('goal') ?? undefined;
      return kernel ? kernel.read((db, now) => renderReviewPacket(db, now, goal)) : '# Review packet\n\nNo store in this workspace yet.\n';
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
    if (!found) return `Evidence #${seq} was not found.\n`;
    const e = found.evidence;
    const lines = [
      `# Evidence #${e.seq} for ${e.todoId ? `todo ${e.todoId}` : `goal ${e.goalId}`}`,
      '',
      `- kind: ${clean(e.kind)}`,
      `- by: ${clean(e.actor)} (${e.actorKind})`,
      `- at: ${e.at}`,
      `- event hash: ${found.hash}`,
      '',
      '## Summary',
      '',
      clean(e.summary),
      '',
      '## Artifacts',
      '',
      ...(e.artifacts.length ? e.artifacts.map((a) => `- \`${clean(a.path)}\` sha256 ${a.sha256} (${a.bytes} bytes)`) : ['none']),
      '',
    ];
    return lines.join('\n');
  }
}

export function evidenceUri(seq: number, root: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: EVIDENCE_SCHEME,
    path: `/evidence-${seq}.md`,
    query: new URLSearchParams({ seq: String(seq), root }).toString(),
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

export function statusUri(root: string): vscode.Uri {
  return vscode.Uri.from({ scheme: STATUS_SCHEME, path: '/STATUS.md', query: new URLSearchParams({ root }).toString() });
}

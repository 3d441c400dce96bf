import * as vscode from 'vscode';
import { join } from 'node:path';
import { gitRawAsync } from '../../kernel/worktrees/git';
import type { WorktreeRow } from '../../kernel/worktrees/worktreeRows';
import { branchFiles } from './branchFiles';
import { Disposable } from '../util/lifecycle';
import type { Folders } from '../folders';

/** Read-only documents of a file as a commit has it: the two sides of a branch's diff. */
export const GIT_SCHEME = 'loopx-git';
const SHA = /^[0-9a-f]{40}$/;

/** A file at a commit, as a read-only document of this scheme (an empty `ref`: the file does not exist on that side). */
export function gitFileUri(root: string, path: string, ref: string): vscode.Uri {
  return vscode.Uri.from({ scheme: GIT_SCHEME, path: `/${path}`, query: new URLSearchParams({ root, ref }).toString() });
}

/**
 * Opens VS Code's multi-file diff editor (`vscode.changes`) on a branch against where it started: each file's two
 * sides are read-only documents of the two commits, so what is shown is the branch, not the folder's current state.
 */
export async function showBranchDiff(root: string, row: WorktreeRow, title: string): Promise<number> {
  const { files, from, to, top } = await branchFiles(root, row);
  if (files.length === 0) {
    void vscode.window.showInformationMessage(`LoopX: ${row.branch} changes no files compared with ${row.base}.`);
    return 0;
  }
  const resources = files.map((f) => [
    vscode.Uri.file(join(top, f.path)),
    gitFileUri(root, f.path, f.status === 'added' ? '' : from),
    gitFileUri(root, f.path, f.status === 'deleted' ? '' : to),
  ]);
  await vscode.commands.executeCommand('vscode.changes', title, resources);
  return files.length;
}

/** Serves `loopx-git:` documents: only from a workspace folder's repository, only by full commit id. */
export class GitDocuments extends Disposable {
  constructor(private readonly folders: Folders) {
    super();
    this.register(
      vscode.workspace.registerTextDocumentContentProvider(GIT_SCHEME, { provideTextDocumentContent: (uri) => this.provide(uri) }),
    );
  }

  private async provide(uri: vscode.Uri): Promise<string> {
    const query = new URLSearchParams(uri.query);
    const root = query.get('root') ?? '';
    const ref = query.get('ref') ?? '';
    const path = uri.path.replace(/^\//, '');
    if (!this.folders.byRoot(root)) return 'This file belongs to no folder of this workspace.\n';
    if (ref === '') return '';
    if (!SHA.test(ref) || path === '' || path.split('/').includes('..')) return 'Not a file of a commit.\n';
    const shown = await gitRawAsync(root, ['show', `${ref}:${path}`]);
    if (shown.status !== 0) return `git could not read ${path} at ${ref.slice(0, 10)}.\n`;
    return shown.stdout.includes('\0') ? `${path} is a binary file; its contents are not shown here.\n` : shown.stdout;
  }
}

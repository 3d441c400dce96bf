import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { teamPointerPath } from '../kernel/team/teamPointer';
import { Disposable, toDisposable } from './util/lifecycle';
import { FolderServices, type SharedServices } from './folderServices';
import { CONTEXT_HAS_STORE, CONTEXT_OPEN_FAILED, CONTEXT_TEAM_UNREACHABLE } from './store/storeModel';
import { isInFolder } from './commands/inFolder';

/** What a command needs from the folder it runs in: an open store, or (Initialize) a folder without one. */
export type FolderNeed = 'store' | 'noStore';

/**
 * Every file-system folder of the workspace, each with its own store and services (FolderServices). A multi-root
 * workspace gets a store per folder that has one; the views group by folder when more than one has. This is also
 * where a command learns which folder it acts in: the folder of the view item it was run on, the folder its
 * arguments name, the only folder that fits, or the one the person picks.
 */
export class Folders extends Disposable {
  private readonly list: FolderServices[] = [];
  /** Which folder handed out each tree node (nodes are plain objects made by the folder's providers). */
  private readonly owners = new WeakMap<object, FolderServices>();
  private readonly listeners = new Map<FolderServices, vscode.Disposable>();
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  /** Fires when a folder is added or removed, or a folder's store opens or fails to open. */
  readonly onDidChange = this.changed.event;

  constructor(private readonly shared: SharedServices) {
    super();
    this.register(
      toDisposable(() => {
        this.listeners.forEach((l) => l.dispose());
        this.list.splice(0).forEach((f) => f.dispose());
      }),
    );
  }

  get all(): readonly FolderServices[] {
    return this.list;
  }

  /** The folders whose store is open, in workspace order. */
  get withStore(): FolderServices[] {
    return this.list.filter((f) => f.session.kernel !== undefined);
  }

  /** True when the views group by folder. */
  get grouped(): boolean {
    return this.withStore.length > 1;
  }

  add(folder: vscode.WorkspaceFolder): FolderServices {
    const services = new FolderServices(folder, this.shared);
    this.list.push(services);
    this.list.sort((a, b) => a.folder.index - b.folder.index);
    this.listeners.set(
      services,
      services.session.onDidChangeOpenState(() => this.update()),
    );
    services.session.tryOpen();
    this.update();
    return services;
  }

  remove(uri: vscode.Uri): void {
    const at = this.list.findIndex((f) => f.folder.uri.toString() === uri.toString());
    if (at < 0) return;
    const [gone] = this.list.splice(at, 1);
    if (gone) {
      this.listeners.get(gone)?.dispose();
      this.listeners.delete(gone);
      gone.dispose();
    }
    this.update();
  }

  /** The folders whose store is a team store open again, at the address the environment now gives. */
  reopenTeamStores(why: string): void {
    for (const f of this.list) if (existsSync(teamPointerPath(f.root))) f.session.reopen(why);
  }

  byRoot(root: string): FolderServices | undefined {
    return this.list.find((f) => f.root === root);
  }

  /** Remembers that `folder` handed out these nodes, and returns them. */
  own<T extends object>(folder: FolderServices, nodes: readonly T[]): T[] {
    for (const node of nodes) this.owners.set(node, folder);
    return [...nodes];
  }

  ownerOf(node: unknown): FolderServices | undefined {
    return typeof node === 'object' && node !== null ? this.owners.get(node) : undefined;
  }

  /**
   * The folder a command acts in, and its arguments (unwrapped from `inFolder`). Undefined when the person
   * dismissed the folder pick.
   */
  async resolve(args: unknown[], need: FolderNeed, title: string): Promise<{ folder: FolderServices; args: unknown[] } | undefined> {
    const [first] = args;
    if (isInFolder(first)) {
      const folder = this.byRoot(first.loopxFolder);
      return folder ? { folder, args: first.args } : undefined;
    }
    const owner = this.ownerOf(first);
    if (owner) return { folder: owner, args };
    const fits = need === 'store' ? this.withStore : this.list.filter((f) => !f.session.kernel);
    const only = fits.length === 1 ? fits[0] : fits.length === 0 ? this.list[0] : undefined;
    if (only) return { folder: only, args };
    const pick = await vscode.window.showQuickPick(
      fits.map((folder) => ({
        label: `$(root-folder) ${folder.name}`,
        description: vscode.workspace.asRelativePath(folder.folder.uri, true),
        folder,
      })),
      { title: `LoopX: ${title}`, placeHolder: need === 'store' ? 'Which folder’s store?' : 'Which folder gets a store?' },
    );
    return pick ? { folder: pick.folder, args } : undefined;
  }

  /** The window's context keys sum the folders: a store anywhere shows the views; a failure shows only when none opened. */
  private update(): void {
    const open = this.withStore.length > 0;
    void vscode.commands.executeCommand('setContext', CONTEXT_HAS_STORE, open);
    void vscode.commands.executeCommand(
      'setContext',
      CONTEXT_OPEN_FAILED,
      !open && this.list.some((f) => f.session.lastFailure !== undefined),
    );
    void vscode.commands.executeCommand(
      'setContext',
      CONTEXT_TEAM_UNREACHABLE,
      this.list.some((f) => f.session.reach.unreachable?.lastState === false),
    );
    this.changed.fire();
  }
}

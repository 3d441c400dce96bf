import * as vscode from 'vscode';
import { Disposable, DisposableStore } from '../util/lifecycle';
import type { FolderServices } from '../folderServices';
import type { Folders } from '../folders';

export type FolderNode = { kind: 'folder'; folder: FolderServices };

type FolderProvider<T> = vscode.TreeDataProvider<T> & { onDidChangeTreeData: vscode.Event<T | undefined | void | T[] | null> };

/**
 * One view over every folder's store: with one store the folder's own provider shows as it is; with several, each
 * folder is a top-level node holding what its provider shows. Nodes stay the folder's own objects (commands learn
 * their folder from them through Folders.ownerOf); tree item ids get the folder's index so two folders' G1 differ.
 */
export class FolderTree<T extends object> extends Disposable implements vscode.TreeDataProvider<T | FolderNode> {
  private readonly changed = this.register(new vscode.EventEmitter<T | FolderNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private readonly folderNodes = new Map<FolderServices, FolderNode>();
  private readonly subscriptions = this.register(new DisposableStore());
  /** Only this folder's tree, ungrouped, when set (the Evidence view follows the selected folder). */
  private focus: FolderServices | undefined;

  constructor(
    private readonly folders: Folders,
    private readonly providerOf: (folder: FolderServices) => FolderProvider<T>,
    private readonly describe: (folder: FolderServices) => string | undefined = () => undefined,
  ) {
    super();
    this.register(folders.onDidChange(() => this.resubscribe()));
    this.resubscribe();
  }

  /** Shows one folder alone (undefined: all folders again). */
  focusOn(folder: FolderServices | undefined): void {
    if (folder === this.focus) return;
    this.focus = folder;
    this.changed.fire(undefined);
  }

  private resubscribe(): void {
    this.subscriptions.clear();
    for (const folder of this.folders.all) {
      this.subscriptions.add(
        this.providerOf(folder).onDidChangeTreeData((node) => this.changed.fire(node && !Array.isArray(node) ? node : undefined)),
      );
    }
    for (const folder of this.folderNodes.keys()) if (!this.folders.all.includes(folder)) this.folderNodes.delete(folder);
    if (this.focus && !this.folders.all.includes(this.focus)) this.focus = undefined;
    this.changed.fire(undefined);
  }

  private get shown(): FolderServices[] {
    return this.focus ? [this.focus] : this.folders.withStore;
  }

  private nodeFor(folder: FolderServices): FolderNode {
    let node = this.folderNodes.get(folder);
    if (!node) this.folderNodes.set(folder, (node = { kind: 'folder', folder }));
    return node;
  }

  private isFolderNode(node: T | FolderNode): node is FolderNode {
    return [...this.folderNodes.values()].includes(node as FolderNode);
  }

  getChildren(node?: T | FolderNode): (T | FolderNode)[] {
    const shown = this.shown;
    if (!node) {
      if (shown.length === 1) return this.childrenOf(shown[0] as FolderServices, undefined);
      return shown.map((f) => this.nodeFor(f));
    }
    if (this.isFolderNode(node)) return this.childrenOf(node.folder, undefined);
    const owner = this.ownerOf(node);
    return owner ? this.childrenOf(owner, node as T) : [];
  }

  /** The folder that handed the node out; with a single folder shown, that folder (a node built elsewhere, e.g. to reveal it). */
  private ownerOf(node: T): FolderServices | undefined {
    const shown = this.shown;
    return this.folders.ownerOf(node) ?? (shown.length === 1 ? shown[0] : undefined);
  }

  private childrenOf(folder: FolderServices, node: T | undefined): T[] {
    return this.folders.own(folder, (this.providerOf(folder).getChildren(node) as T[] | undefined) ?? []);
  }

  getTreeItem(node: T | FolderNode): vscode.TreeItem {
    if (this.isFolderNode(node)) {
      const item = new vscode.TreeItem(node.folder.name, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `folder:${node.folder.root}`;
      item.iconPath = new vscode.ThemeIcon('root-folder');
      item.description = this.describe(node.folder);
      item.tooltip = node.folder.root;
      item.contextValue = 'loopx:folder';
      return item;
    }
    const owner = this.ownerOf(node);
    if (!owner) return new vscode.TreeItem('(gone)');
    const item = this.providerOf(owner).getTreeItem(node as T) as vscode.TreeItem;
    if (this.shown.length > 1 && item.id) item.id = `${owner.folder.index}/${item.id}`;
    return item;
  }

  getParent(node: T | FolderNode): T | FolderNode | undefined {
    if (this.isFolderNode(node)) return undefined;
    const owner = this.ownerOf(node);
    if (!owner) return undefined;
    const parent = this.providerOf(owner).getParent?.(node as T) as T | undefined;
    if (parent) return this.folders.own(owner, [parent])[0];
    return this.shown.length > 1 ? this.nodeFor(owner) : undefined;
  }
}

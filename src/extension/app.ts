import * as vscode from 'vscode';
import { Disposable } from './util/lifecycle';
import type { Log } from './util/log';
import { humanActor } from './store/identity';
import { Folders } from './folders';
import type { FolderServices } from './folderServices';
import type { GoalsNode } from './views/goalsTree';
import type { GateNode } from './views/gatesTree';
import type { EvidenceNode } from './views/evidenceTree';
import type { AgentNode } from './views/agentsTree';
import type { MonitorNode } from './views/monitorsTree';
import { FolderTree, type FolderNode } from './views/folderTree';
import { VirtualDocuments } from './views/virtualDocuments';
import { GitDocuments } from './worktrees/branchDiff';
import { QuotaStatusBar } from './statusBar';
import { WakeClock } from './clock';
import { registerCommands } from './commands/registry';
import { type BoardPanel, Boards } from './board/boardPanel';
import type { BoardOpener, StoryOpener } from './services';
import { Stories } from './story/storyPanel';
import { goalProgress } from './views/goalsTree';
import { GoalFileSupport } from './goalFiles/goalFileSupport';
import { WalkthroughProgress } from './walkthroughProgress';
import { GoalsFilter } from './views/goalsFilter';
import { ProjectsView } from './views/projectsView';
import { DashboardHost } from './dashboard/dashboardHost';

/**
 * The composition root: one FolderServices per workspace folder (its store, model, turns…), and the window's parts
 * over all of them: the four views (grouped by folder when several folders have a store), the status bar, the
 * read-only documents and the commands, which run in the folder they are about.
 */
export class LoopxApp extends Disposable {
  readonly folders: Folders;
  readonly goalsTree: FolderTree<GoalsNode>;
  readonly gatesTree: FolderTree<GateNode> & { pendingCount(): number };
  readonly evidenceTree: FolderTree<EvidenceNode> & { readonly scope: string };
  readonly agentsTree: FolderTree<AgentNode>;
  readonly monitorsTree: FolderTree<MonitorNode>;
  readonly monitorsView: vscode.TreeView<MonitorNode | FolderNode>;
  readonly statusBar: QuotaStatusBar;
  readonly goalsView: vscode.TreeView<GoalsNode | FolderNode>;
  /** The goal-file language server, started when the first *.goal.md opens. */
  readonly goalFiles: GoalFileSupport;
  /** The window's one board panel, on whichever folder's store it shows. */
  readonly boards: Boards;
  /** The window's goal story panel. */
  readonly stories: Stories;
  /** Filter Todos…: what the Goals view shows, in every folder. */
  readonly goalsFilter: GoalsFilter;
  /** The read-only documents (status, evidence, review packet, todo), one provider per scheme. */
  readonly documents: VirtualDocuments;
  /** Get Started's checkmarks, from what the stores hold. */
  readonly walkthrough: WalkthroughProgress;
  /** The person's other projects and what waits in each. */
  readonly projects: ProjectsView;

  /** How long activate() took, for the activation benchmark. */
  activationMs = 0;

  constructor(
    workspaceFolders: readonly vscode.WorkspaceFolder[],
    readonly log: Log,
    host: { extensionUri: vscode.Uri; workspaceState: vscode.Memento; cliCommand: string },
  ) {
    super();
    const actor = humanActor();
    // Each folder's Open Board shows the window's board, and the board spans the folders: the one is made with the other.
    const board: BoardOpener = { show: (ctx, reveal) => this.boards.show(ctx, reveal) };
    const story: StoryOpener = { show: (ctx, goalId) => this.stories.show(ctx, goalId) };
    this.stories = this.register(new Stories());
    this.goalsFilter = this.register(new GoalsFilter());
    this.folders = this.register(new Folders({ log, actor, board, story, goalsFilter: this.goalsFilter, ...host }));
    this.boards = this.register(new Boards(this.folders));
    const describe = (f: FolderServices) => {
      const goals = f.model.status()?.goals ?? [];
      const { shipped, total } = goals.reduce(
        (sum, g) => {
          const p = goalProgress(g.counts);
          return { shipped: sum.shipped + p.shipped, total: sum.total + p.total };
        },
        { shipped: 0, total: 0 },
      );
      return `${goals.length} goal${goals.length === 1 ? '' : 's'} · ${shipped}/${total}`;
    };
    this.goalsTree = this.register(new FolderTree(this.folders, (f) => f.goalsTree, describe));
    const gates = this.register(
      new FolderTree<GateNode>(
        this.folders,
        (f) => f.gatesTree,
        (f) => `${f.gatesTree.pendingCount()} pending`,
      ),
    );
    this.gatesTree = Object.assign(gates, {
      pendingCount: () => this.folders.withStore.reduce((n, f) => n + f.gatesTree.pendingCount(), 0),
    });
    const evidence = this.register(new FolderTree<EvidenceNode>(this.folders, (f) => f.evidenceTree));
    this.evidenceTree = Object.defineProperty(evidence, 'scope', { get: () => this.evidenceScope() }) as FolderTree<EvidenceNode> & {
      readonly scope: string;
    };
    this.agentsTree = this.register(new FolderTree<AgentNode>(this.folders, (f) => f.agentsTree));
    this.goalsView = this.register(
      vscode.window.createTreeView('loopx.goals', { treeDataProvider: this.goalsTree, showCollapseAll: true }),
    );
    // The Goals view's title line: where a team store that does not answer is, else the filter (with Clear Filter
    // beside it: package.json, loopx.goalsFiltered).
    const describeGoals = () => {
      const away = this.folders.withStore.map((f) => f.session.reach.unreachable).find((u) => u !== undefined);
      const text = this.goalsFilter.text;
      this.goalsView.description = away ? `${away.where} cannot be reached` : text ? `filtered: “${text}”` : undefined;
    };
    this.register(this.goalsFilter.onDidChange(describeGoals));
    // A team store whose server does not answer: the Goals view says so. VS Code shows a view's welcome (Retry, Show the
    // Last State: package.json) only without a message, so until the last state is shown the welcome says it, with the
    // address in the title line; once shown, the message says the rows may be out of date.
    const showReach = () => {
      const reaches = this.folders.withStore.map((f) => f.session.reach);
      const lastState = reaches.find((r) => r.unreachable?.lastState);
      this.goalsView.message = reaches.some((r) => r.unreachable?.lastState === false) ? undefined : lastState?.sentence();
      describeGoals();
    };
    this.register(this.folders.onDidChange(showReach));
    const gatesView = this.register(vscode.window.createTreeView('loopx.gates', { treeDataProvider: this.gatesTree }));
    const evidenceView = this.register(vscode.window.createTreeView('loopx.evidence', { treeDataProvider: this.evidenceTree }));
    this.register(vscode.window.createTreeView('loopx.agents', { treeDataProvider: this.agentsTree }));
    this.monitorsTree = this.register(
      new FolderTree<MonitorNode>(
        this.folders,
        (f) => f.monitorsTree,
        (f) => `${f.monitorsTree.waitingCount()} waiting`,
      ),
    );
    const monitorsView = (this.monitorsView = this.register(
      vscode.window.createTreeView('loopx.monitors', { treeDataProvider: this.monitorsTree }),
    ));
    // The Monitors view says when this window does not run checks, and why (an untrusted workspace, a setting).
    const showTickerState = () => {
      const idle = this.folders.withStore.map((f) => f.monitorTicker.state).find((state) => !state.ticking && state.why !== 'no_store');
      monitorsView.message = idle && !idle.ticking ? idle.message : undefined;
      const waiting = this.folders.withStore.reduce((n, f) => n + f.monitorsTree.waitingCount(), 0);
      monitorsView.description = waiting ? `${waiting} waiting` : undefined;
    };
    this.documents = this.register(new VirtualDocuments(this.folders));
    this.register(new GitDocuments(this.folders));
    this.goalFiles = this.register(new GoalFileSupport(host.extensionUri, log));
    this.statusBar = this.register(new QuotaStatusBar(this.folders));
    this.walkthrough = this.register(new WalkthroughProgress(this.folders));
    this.projects = this.register(
      new ProjectsView(() => this.folders.all.map((f) => f.root), log, new DashboardHost(host.extensionUri, log)),
    );

    // The Evidence view follows the selection in the Goals view (in the selected item's folder).
    this.register(
      this.goalsView.onDidChangeSelection(({ selection }) => {
        const node = selection[0];
        const owner =
          node && node.kind === 'folder'
            ? node.folder
            : (this.folders.ownerOf(node) ?? (this.folders.grouped ? undefined : this.folders.withStore[0]));
        for (const f of this.folders.all)
          f.evidenceTree.setFilter(
            f === owner && node?.kind === 'todo'
              ? { todoId: node.todo.id }
              : f === owner && node?.kind === 'goal'
                ? { goalId: node.goal.id }
                : {},
          );
        this.evidenceTree.focusOn(owner && this.folders.grouped ? owner : undefined);
        this.evidenceOwner = owner;
        evidenceView.description = this.evidenceTree.scope;
      }),
    );
    const updateBadge = () => {
      const pending = this.gatesTree.pendingCount();
      gatesView.badge = pending
        ? { value: pending, tooltip: `${pending} gate${pending === 1 ? '' : 's'} waiting for your decision` }
        : undefined;
      evidenceView.description = this.evidenceTree.scope;
    };

    for (const d of registerCommands(this.folders)) this.register(d);
    const clocks = new Map<FolderServices, WakeClock>();
    const onFolders = () => {
      for (const f of this.folders.all) {
        if (clocks.has(f)) continue;
        clocks.set(
          f,
          this.register(
            new WakeClock(f.model, () => {
              f.goalsTree.refreshTimes();
              f.agentsTree.refreshTimes();
              f.monitorsTree.refreshTimes();
              this.statusBar.render();
            }),
          ),
        );
        this.register(f.model.onDidChange(updateBadge));
        this.register(f.model.onDidChange(showTickerState));
        this.register(f.monitorTicker.onDidChangeState(showTickerState));
      }
      for (const [f, clock] of clocks) {
        if (this.folders.all.includes(f)) continue;
        clock.dispose();
        clocks.delete(f);
      }
      updateBadge();
      showTickerState();
    };
    this.register(this.folders.onDidChange(onFolders));
    for (const folder of workspaceFolders) this.folders.add(folder);
    // After the folders: a board kept over a reload comes back for the store it showed.
    this.register(this.boards.registerSerializer());
    this.register(
      vscode.workspace.onDidChangeWorkspaceFolders(({ added, removed }) => {
        for (const folder of removed) this.folders.remove(folder.uri);
        for (const folder of added) if (folder.uri.scheme === 'file') this.folders.add(folder);
      }),
    );
    onFolders();
  }

  private evidenceOwner: FolderServices | undefined;

  /** `loopx.team.databaseUrl` changed (the environment already holds it): team stores and the goal-file server follow. */
  teamStoreSettingChanged(): void {
    this.folders.reopenTeamStores('the team store setting changed');
    this.goalFiles.restart().catch((error: unknown) => this.log.warn(`could not restart the goal-file server: ${String(error)}`));
  }

  private evidenceScope(): string {
    const owner = this.evidenceOwner ?? this.folders.withStore[0];
    if (!owner) return '';
    return this.folders.grouped ? `${owner.name} · ${owner.evidenceTree.scope}` : owner.evidenceTree.scope;
  }

  /** The first folder: the one a single-folder workspace has (tests and the single-folder API read it). */
  get primary(): FolderServices {
    const first = this.folders.all[0];
    if (!first) throw new Error('LoopX has no workspace folder');
    return first;
  }

  get session() {
    return this.primary.session;
  }

  get model() {
    return this.primary.model;
  }

  get witness() {
    return this.primary.witness;
  }

  get turns() {
    return this.primary.turns;
  }

  get autoRunner() {
    return this.primary.autoRunner;
  }

  get turnRecovery() {
    return this.primary.turnRecovery;
  }

  get gateNotifier() {
    return this.primary.gateNotifier;
  }

  get monitorTicker() {
    return this.primary.monitorTicker;
  }

  get monitorNotifier() {
    return this.primary.monitorNotifier;
  }

  /** The open board panel, if any (tests reach the extension's instance through here). */
  get board(): BoardPanel | undefined {
    return this.boards.current;
  }
}

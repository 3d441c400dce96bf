import * as vscode from 'vscode';
import { Disposable } from './util/lifecycle';
import type { Log } from './util/log';
import { StoreSession } from './store/storeSession';
import { StoreModel } from './store/storeModel';
import { LogWitness } from './store/logWitness';
import { humanActor } from './store/identity';
import { GoalsTreeProvider, type GoalsNode } from './views/goalsTree';
import { GatesTreeProvider } from './views/gatesTree';
import { EvidenceTreeProvider } from './views/evidenceTree';
import { AgentsTreeProvider } from './views/agentsTree';
import { VirtualDocuments } from './views/virtualDocuments';
import { QuotaStatusBar } from './statusBar';
import { GateNotifier } from './gateNotifier';
import { WakeClock } from './clock';
import { registerCommands } from './commands/registry';
import { BoardPanel } from './board/boardPanel';
import { TurnRunner } from './turns/turnRunner';
import { AutoRunner } from './turns/autoRunner';
import { TurnRecovery } from './turns/turnRecovery';
import type { ExtensionContextLike } from './commands/context';
import { type MonitorNode, MonitorsTreeProvider } from './views/monitorsTree';
import { MonitorTicker } from './monitors/monitorTicker';
import { MonitorNotifier } from './monitors/monitorNotifier';

/** The composition root: builds every part once and owns their disposal. */
export class LoopxApp extends Disposable {
  readonly session: StoreSession;
  readonly model: StoreModel;
  readonly goalsTree: GoalsTreeProvider;
  readonly gatesTree: GatesTreeProvider;
  readonly evidenceTree: EvidenceTreeProvider;
  readonly agentsTree: AgentsTreeProvider;
  readonly statusBar: QuotaStatusBar;
  readonly gateNotifier: GateNotifier;
  readonly goalsView: vscode.TreeView<GoalsNode>;
  readonly turns: TurnRunner;
  readonly autoRunner: AutoRunner;
  readonly witness: LogWitness;
  readonly turnRecovery: TurnRecovery;
  readonly monitorsTree: MonitorsTreeProvider;
  readonly monitorTicker: MonitorTicker;
  readonly monitorNotifier: MonitorNotifier;
  readonly monitorsView: vscode.TreeView<MonitorNode>;

  /** The open board panel, if any (tests reach the extension's instance through here). */
  get board(): BoardPanel | undefined {
    return BoardPanel.current;
  }

  /** How long activate() took, for the activation benchmark. */
  activationMs = 0;

  constructor(
    root: string,
    readonly log: Log,
    host: { extensionUri: vscode.Uri; workspaceState: vscode.Memento; cliCommand: string },
  ) {
    super();
    const actor = humanActor();
    this.session = this.register(new StoreSession(root, actor, this.log));
    this.witness = this.register(new LogWitness(this.session, host.workspaceState, this.log));
    this.model = this.register(new StoreModel(this.session));
    this.goalsTree = this.register(new GoalsTreeProvider(this.model, actor.name));
    this.gatesTree = this.register(new GatesTreeProvider(this.model));
    this.evidenceTree = this.register(new EvidenceTreeProvider(this.model, root));
    this.agentsTree = this.register(new AgentsTreeProvider(this.model));
    this.goalsView = this.register(vscode.window.createTreeView('loopx.goals', { treeDataProvider: this.goalsTree, showCollapseAll: true }));
    const gatesView = this.register(vscode.window.createTreeView('loopx.gates', { treeDataProvider: this.gatesTree }));
    const evidenceView = this.register(vscode.window.createTreeView('loopx.evidence', { treeDataProvider: this.evidenceTree }));
    this.register(vscode.window.createTreeView('loopx.agents', { treeDataProvider: this.agentsTree }));
    this.monitorsTree = this.register(new MonitorsTreeProvider(this.model));
    const monitorsView = (this.monitorsView = this.register(vscode.window.createTreeView('loopx.monitors', { treeDataProvider: this.monitorsTree })));
    this.monitorTicker = this.register(new MonitorTicker(this.session, this.model, this.log));
    this.monitorNotifier = this.register(new MonitorNotifier(this.model));
    // The Monitors view says when this window does not run checks, and why (an untrusted workspace, a setting).
    const showTickerState = () => {
      const state = this.monitorTicker.state;
      monitorsView.message = !state.ticking && state.why !== 'no_store' ? state.message : undefined;
      const waiting = this.monitorsTree.waitingCount();
      monitorsView.description = waiting ? `${waiting} waiting` : undefined;
    };
    this.register(this.monitorTicker.onDidChangeState(showTickerState));
    this.register(this.model.onDidChange(showTickerState));
    this.register(new VirtualDocuments(this.session, this.model));
    this.statusBar = this.register(new QuotaStatusBar(this.model));
    this.gateNotifier = this.register(new GateNotifier(this.model));
    this.register(new WakeClock(this.model, () => {
      this.goalsTree.refreshTimes();
      this.agentsTree.refreshTimes();
      this.monitorsTree.refreshTimes();
      this.statusBar.render();
    }));

    // The Evidence view follows the selection in the Goals view.
    this.register(this.goalsView.onDidChangeSelection(({ selection }) => {
      const node = selection[0];
      this.evidenceTree.setFilter(node?.kind === 'todo' ? { todoId: node.todo.id } : node?.kind === 'goal' ? { goalId: node.goal.id } : {});
      evidenceView.description = this.evidenceTree.scope;
    }));
    evidenceView.description = this.evidenceTree.scope;
    const updateBadge = () => {
      const pending = this.gatesTree.pendingCount();
      gatesView.badge = pending ? { value: pending, tooltip: `${pending} pending gate${pending === 1 ? '' : 's'}` } : undefined;
    };
    this.register(this.model.onDidChange(updateBadge));

    const ctx: ExtensionContextLike = { session: this.session, model: this.model, log: this.log, me: actor.name, extensionUri: host.extensionUri, cliCommand: host.cliCommand, goalsTree: this.goalsTree, witness: this.witness, monitors: this.monitorTicker };
    this.turns = this.register(new TurnRunner(ctx));
    ctx.turns = this.turns;
    this.autoRunner = this.register(new AutoRunner(this.model, this.turns, this.log));
    this.turnRecovery = this.register(new TurnRecovery(this.session, this.turns, this.log));
    for (const d of registerCommands(ctx)) this.register(d);
    this.session.tryOpen();
    updateBadge();
    showTickerState();
  }
}

import type * as vscode from 'vscode';
import { Disposable } from './util/lifecycle';
import type { Log } from './util/log';
import type { Actor } from '../kernel/events/eventTypes';
import { StoreSession, StoreModel } from './store/storeModel';
import { LogWitness } from './store/logWitness';
import { GoalsTreeProvider } from './views/goalsTree';
import { GatesTreeProvider } from './views/gatesTree';
import { EvidenceTreeProvider } from './views/evidenceTree';
import { AgentsTreeProvider } from './views/agentsTree';
import { GateNotifier } from './gateNotifier';
import { TurnRunner } from './turns/turnRunner';
import { AutoRunner } from './turns/autoRunner';
import { TurnRecovery } from './turns/turnRecovery';
import type { BoardOpener, Services, StoryOpener } from './services';
import { MonitorsTreeProvider } from './views/monitorsTree';
import { MonitorTicker } from './monitors/monitorTicker';
import { MonitorNotifier } from './monitors/monitorNotifier';
import { EventNotifier, WindowHooks } from './hooks/windowHooks';
import type { GoalsFilter } from './views/goalsFilter';
import { WorktreeJanitor } from './worktrees/worktreeJanitor';

/** What every folder's services share: the window's log, the person, where the extension and its CLI are. */
export interface SharedServices {
  log: Log;
  actor: Actor;
  extensionUri: vscode.Uri;
  workspaceState: vscode.Memento;
  cliCommand: string;
  /** The window's board (one panel for every folder). */
  board: BoardOpener;
  /** The window's goal story panel. */
  story: StoryOpener;
  /** The Goals view's filter (one for the window). */
  goalsFilter: GoalsFilter;
}

/**
 * One workspace folder's store and everything that works on it: the session and read model, the log witness, the
 * folder's own tree providers (the window's views show them, grouped by folder when several folders have a store),
 * turns in terminals that start in this folder, auto-run and turn recovery, gate notifications. Commands run with
 * this folder's `ctx`, built whole once every service exists.
 */
export class FolderServices extends Disposable {
  readonly root: string;
  readonly session: StoreSession;
  readonly witness: LogWitness;
  readonly model: StoreModel;
  readonly goalsTree: GoalsTreeProvider;
  readonly gatesTree: GatesTreeProvider;
  readonly evidenceTree: EvidenceTreeProvider;
  readonly agentsTree: AgentsTreeProvider;
  readonly gateNotifier: GateNotifier;
  readonly turns: TurnRunner;
  readonly autoRunner: AutoRunner;
  readonly turnRecovery: TurnRecovery;
  readonly monitorsTree: MonitorsTreeProvider;
  readonly monitorTicker: MonitorTicker;
  readonly monitorNotifier: MonitorNotifier;
  /** Hooks a person set, run by this window for events it sees first (trusted workspaces). */
  readonly hooks: WindowHooks;
  readonly eventNotifier: EventNotifier;
  /** The automatic worktree clean-up, when the person turned it on (loopx.worktrees.cleanAfter). */
  readonly worktreeJanitor: WorktreeJanitor;
  readonly ctx: Services;

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    shared: SharedServices,
  ) {
    super();
    this.root = folder.uri.fsPath;
    const { log, actor } = shared;
    this.session = this.register(new StoreSession(this.root, actor, log));
    this.witness = this.register(new LogWitness(this.session, folderMemento(shared.workspaceState, this.root), log));
    this.model = this.register(
      new StoreModel(this.session, (todo, error) => log.warn(`could not read the branch of ${todo} from git: ${String(error)}`)),
    );
    this.goalsTree = this.register(new GoalsTreeProvider(this.model, actor.name, shared.goalsFilter));
    this.gatesTree = this.register(new GatesTreeProvider(this.model));
    this.evidenceTree = this.register(new EvidenceTreeProvider(this.model, this.root));
    this.agentsTree = this.register(new AgentsTreeProvider(this.model, actor.name));
    this.gateNotifier = this.register(new GateNotifier(this.model, this.root));
    this.monitorsTree = this.register(new MonitorsTreeProvider(this.model));
    this.monitorTicker = this.register(new MonitorTicker(this.session, this.model, log));
    this.monitorNotifier = this.register(new MonitorNotifier(this.model));
    this.hooks = this.register(new WindowHooks(this.session, this.model, log));
    this.eventNotifier = this.register(new EventNotifier(this.session, this.model, this.root));
    this.turns = this.register(new TurnRunner({ session: this.session, model: this.model, log, cliCommand: shared.cliCommand }));
    this.ctx = {
      session: this.session,
      model: this.model,
      log,
      me: actor.name,
      extensionUri: shared.extensionUri,
      cliCommand: shared.cliCommand,
      turns: this.turns,
      goalsTree: this.goalsTree,
      witness: this.witness,
      monitors: this.monitorTicker,
      board: shared.board,
      story: shared.story,
      goalsFilter: shared.goalsFilter,
    };
    this.autoRunner = this.register(new AutoRunner(this.model, this.turns, log));
    this.turnRecovery = this.register(new TurnRecovery(this.session, this.turns, log));
    this.worktreeJanitor = this.register(new WorktreeJanitor(this.session, this.model, log));
  }

  get name(): string {
    return this.folder.name;
  }
}

/**
 * Workspace state is one store of keys for the whole window: each folder's witness keeps its own keys, named by
 * the folder's path.
 */
export function folderMemento(memento: vscode.Memento, root: string): vscode.Memento {
  const scoped = (key: string) => `${key}@${root}`;
  return {
    keys: () =>
      memento
        .keys()
        .filter((k) => k.endsWith(`@${root}`))
        .map((k) => k.slice(0, -root.length - 1)),
    get: <T>(key: string, fallback?: T) => memento.get<T>(scoped(key)) ?? (fallback as T),
    update: (key: string, value: unknown) => memento.update(scoped(key), value),
  } as vscode.Memento;
}

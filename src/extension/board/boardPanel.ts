import * as vscode from 'vscode';
import { basename, isAbsolute, normalize } from 'node:path';
import { type AnswerTo, type ToHost, parseToHost } from '../../protocol/boardSchemas';
import { BOARD_VIEW_TYPE, type BoardFolder, type BoardReveal, type BoardSnapshot, type ToWebview } from '../../protocol/boardProtocol';
import { Disposable, MutableDisposable } from '../util/lifecycle';
import { webviewPage } from '../util/webviewPage';
import type { BoardOpener, Services } from '../services';
import type { Folders } from '../folders';
import { BoardActions, type Outcome } from './boardActions';
import { buildDetail, diffSnapshots } from './boardData';
import { readBoard } from './boardRead';
import { todoDetailFacts } from '../../kernel/readModels/cards';
import { describeError } from '../../runtime/describeError';
import { teamUnreachableSentence } from '../../protocol/errors';
import { BoardHistory } from './boardHistory';
import { runSafely } from '../commands/context';
import { showTurns } from '../commands/turnOutput';
import { refresh, showLastState } from '../commands/inspect';

/**
 * The window's board: at most one panel at a time, owned by the app (no static state). Opening another folder's
 * board replaces the one on screen; a panel VS Code kept over a reload comes back through the serializer.
 */
export class Boards extends Disposable implements BoardOpener {
  private board: BoardPanel | undefined;
  private readonly closing = this.register(new MutableDisposable<vscode.Disposable>());

  constructor(private readonly folders: Folders) {
    super();
  }

  /**
   * The open board panel, if any. The app's disposal leaves it open on purpose: a panel closed while the window
   * reloads would not come back through the serializer.
   */
  get current(): BoardPanel | undefined {
    return this.board;
  }

  show(ctx: Services, reveal?: BoardReveal): BoardPanel {
    const open = this.current;
    if (open?.ctx === ctx) {
      open.panel.reveal();
      if (reveal) open.reveal(reveal);
      return open;
    }
    const panel = vscode.window.createWebviewPanel(
      BOARD_VIEW_TYPE,
      boardTitle(ctx),
      vscode.ViewColumn.Active,
      webviewOptions(ctx.extensionUri),
    );
    const board = this.adopt(panel, ctx);
    if (reveal) board.reveal(reveal);
    return board;
  }

  /**
   * Brings the board back after a window reload. VS Code hands over the panel it kept; the webview's own state
   * (filters, the open card) comes back with it through getState. Registered once at activation, after the folders;
   * package.json's `onWebviewPanel:loopx.board` activation event makes sure the extension is there to answer. The
   * folder is the one the panel's title names (a multi-root board), else the first.
   */
  registerSerializer(): vscode.Disposable {
    return vscode.window.registerWebviewPanelSerializer(BOARD_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel) => {
        const folder = this.folders.withStore.find((f) => panel.title === boardTitle(f.ctx)) ?? this.folders.withStore[0];
        const ctx = folder?.ctx;
        if (this.current || !ctx) {
          this.folders.all[0]?.ctx.log.info(`board not restored: ${this.current ? 'another board is open' : 'no store is open'}`);
          panel.dispose();
          return;
        }
        this.adopt(panel, ctx);
      },
    });
  }

  private adopt(panel: vscode.WebviewPanel, ctx: Services): BoardPanel {
    // A restored panel keeps its old options; set them again so they always match this build's.
    panel.webview.options = webviewOptions(ctx.extensionUri);
    panel.iconPath = vscode.Uri.joinPath(ctx.extensionUri, 'media', 'icon.svg');
    this.board?.dispose(); // one board at a time
    const board = (this.board = new BoardPanel(panel, ctx, this.folders));
    this.closing.value = panel.onDidDispose(() => {
      if (this.board === board) this.board = undefined;
    });
    return board;
  }
}

/**
 * The "LoopX Board" webview panel. Strict CSP with a nonce, assets only from dist/webview, every inbound message
 * parsed before use; the board follows the store through the model and sends patches, not whole boards.
 */
export class BoardPanel extends Disposable {
  private last: BoardSnapshot | undefined;
  private actions: BoardActions;
  private readonly following = this.register(new MutableDisposable<vscode.Disposable>());
  /** Messages refused by validation (tests and the log read it). */
  readonly refused: string[] = [];
  /** The board at past moments, while the person looks back (read-only). */
  private history: BoardHistory;
  /** What Open on Board asked the webview to show, in order (tests read it). */
  readonly revealed: BoardReveal[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    private context: Services,
    /** The workspace's folders, so the board can span them. */
    private readonly folders: Folders,
  ) {
    super();
    this.actions = new BoardActions(context);
    this.history = new BoardHistory(context.me);
    this.register({ dispose: () => this.history.end() });
    panel.webview.html = webviewPage(panel.webview, assetsOf(context.extensionUri), {
      bundle: 'board',
      title: 'LoopX Board',
      loading: 'Loading the board…',
    });
    this.register(panel.webview.onDidReceiveMessage((message: unknown) => void this.receive(message)));
    this.following.value = context.model.onDidChange(() => this.push());
    this.register(panel.onDidDispose(() => this.dispose()));
  }

  override dispose(): void {
    super.dispose();
    this.panel.dispose();
  }

  /**
   * Handles one message from the webview (public so host tests can feed it hostile input directly); resolves to the
   * result it answered a move or button with, if any. Every message is checked first against the host's schema of
   * what the webview may send (protocol/boardSchemas.ts, whose type the webview imports); one that fails is refused
   * and logged, never acted on.
   */
  async receive(message: unknown): Promise<ToWebview | undefined> {
    const parsed = parseToHost(message);
    if (!parsed.ok) {
      this.refused.push(parsed.problem);
      this.ctx.log.warn(`board: refused a webview message (${parsed.problem})`);
      return undefined;
    }
    const m: ToHost = parsed.value;
    switch (m.type) {
      case 'ready':
        this.last = undefined;
        this.push();
        this.ready = true;
        if (this.pendingReveal) this.reveal(this.pendingReveal);
        return undefined;
      case 'move':
        return this.answer(m.requestId, await this.actions.move(m.todoId, m.to));
      case 'todoAction':
        return this.answer(m.requestId, await this.actions.todo(m.action, m.todoId));
      case 'gateAction':
        return this.answer(m.requestId, await this.actions.gate(m.action, m.gateId));
      case 'goalAction':
        return this.answer(m.requestId, await this.actions.goal(m.action, m.goalId));
      case 'detail':
        this.sendDetail(m.requestId, m.todoId);
        return undefined;
      case 'openArtifact':
        await this.openArtifact(m.path);
        return undefined;
      case 'openTurnOutput':
        await runSafely(this.ctx, showTurns, [m.turnId]);
        return undefined;
      case 'switchFolder':
        this.switchFolder(m.folder);
        return undefined;
      case 'history':
      case 'historyAt':
        return this.sendPast(m.requestId, m.type === 'history' ? m.seq : m.at);
      case 'historyEnd':
        this.history.end();
        return undefined;
      case 'openStory':
        await vscode.commands.executeCommand('loopx.openStory', ...(m.goalId ? [m.goalId] : []));
        return undefined;
      case 'notice':
        // The banner's buttons are the views' own: Retry (Refresh asks the server again) and Show the Last State.
        await runSafely(this.ctx, m.action === 'retry' ? refresh : showLastState, []);
        return undefined;
    }
  }

  /** The board as it was at an event (or a time), read-only; the replay is kept while the person scrubs. */
  private sendPast(requestId: number, to: number | string): ToWebview {
    const kernel = this.ctx.session.kernel;
    let message: ToWebview;
    try {
      if (!kernel) throw new Error('no store is open');
      const started = Date.now();
      const seq = typeof to === 'number' ? to : this.history.seqAt(kernel, to);
      const past = this.history.at(kernel, seq);
      this.ctx.log.info(`board: history at event ${past.seq} of ${past.head} in ${Date.now() - started} ms`);
      message = { type: 'history', requestId, past };
    } catch (error) {
      this.ctx.log.error('board: history failed', error);
      message = { type: 'result', requestId, ok: false, error: describeError(error, 'person').body };
    }
    void this.panel.webview.postMessage(message);
    return message;
  }

  private ready = false;
  private pendingReveal: BoardReveal | undefined;

  /** Shows a card's detail or one goal's cards (Open on Board); waits for the webview's first snapshot if needed. */
  reveal(target: BoardReveal): void {
    if (!this.ready) {
      this.pendingReveal = target;
      return;
    }
    this.pendingReveal = undefined;
    this.revealed.push(target);
    void this.panel.webview.postMessage({ type: 'reveal', ...target } satisfies ToWebview);
  }

  /** The folder whose store the board shows. */
  get ctx(): Services {
    return this.context;
  }

  /** The goal selector picked another folder's goal: the same panel now shows that folder's store. */
  private switchFolder(index: number): void {
    const target = this.folders.withStore.find((f) => f.folder.index === index);
    if (!target) {
      this.refused.push(`switchFolder: no folder ${index} with a store`);
      return;
    }
    if (target.ctx === this.context) return;
    this.context = target.ctx;
    this.actions = new BoardActions(target.ctx);
    this.history.end();
    this.history = new BoardHistory(target.ctx.me);
    this.following.value = target.ctx.model.onDidChange(() => this.push());
    this.panel.title = boardTitle(target.ctx);
    this.last = undefined;
    this.push();
  }

  /** Every folder with a store and its goals, when there is more than one (the selector spans folders). */
  private foldersFor(): BoardFolder[] | undefined {
    const stores = this.folders.withStore;
    if (stores.length < 2) return undefined;
    return stores.map((f) => ({
      index: f.folder.index,
      name: f.name,
      current: f.ctx === this.context,
      goals: f.model.goals().map((g) => ({ id: g.id, title: g.title })),
    }));
  }

  private push(): void {
    if (!this.ctx.session.kernel) return;
    const changes = this.ctx.model.changes(); // git, read outside the store's transaction
    // Through the views' reach: a team store that does not answer gives the banner, not an empty board or a throw.
    const built = readBoard(this.ctx.session.reach, this.ctx.me, changes);
    const folders = this.foldersFor();
    const next = folders ? { ...built, folders } : built;
    const message: ToWebview = this.last ? { type: 'patch', patch: diffSnapshots(this.last, next) } : { type: 'snapshot', snapshot: next };
    this.last = next;
    void this.panel.webview.postMessage(message);
  }

  private answer(requestId: number, outcome: Outcome): ToWebview {
    const message: ToWebview = outcome.ok
      ? { type: 'result', requestId, ok: true }
      : {
          type: 'result',
          requestId,
          ok: false,
          error: 'error' in outcome ? outcome.error : { code: 'cancelled', message: 'cancelled', hint: null },
          ...('decide' in outcome && outcome.decide ? { decide: outcome.decide } : {}),
        };
    void this.panel.webview.postMessage(message);
    return message;
  }

  private sendDetail(requestId: number, todoId: string): void {
    const kernel = this.ctx.session.kernel;
    // Looking back: the card as it was then, from the replayed store.
    const past = this.history.active ? this.history.detail(todoId) : null;
    if (past) {
      void this.panel.webview.postMessage({ type: 'detail', requestId, detail: past } satisfies AnswerTo<'detail'>);
      return;
    }
    const card = this.last?.cards.find((c) => c.id === todoId);
    if (!kernel || !card) {
      this.answer(requestId, { ok: false, error: { code: 'not_found', message: `todo ${todoId} not found`, hint: null } });
      return;
    }
    // The last state while the store cannot be reached and the person asked for it (the banner says so); else why not.
    const detail = this.ctx.session.reach.read((db, now) => buildDetail(todoDetailFacts(db, card.id), card, now), null);
    if (!detail) {
      const where = this.ctx.session.reach.unreachable?.where;
      this.answer(requestId, { ok: false, error: { code: 'team_unreachable', message: teamUnreachableSentence(where), hint: null } });
      return;
    }
    void this.panel.webview.postMessage({ type: 'detail', requestId, detail } satisfies AnswerTo<'detail'>);
  }

  /** Artifact paths come from the webview: only workspace-relative paths, never out of the workspace. */
  private async openArtifact(path: string): Promise<void> {
    const clean = normalize(path).replace(/\\/g, '/');
    if (isAbsolute(clean) || clean.startsWith('../') || clean === '..' || clean.includes('\0')) {
      this.refused.push(`openArtifact: ${path} leaves the workspace`);
      return;
    }
    const uri = vscode.Uri.joinPath(vscode.Uri.file(this.ctx.session.root), ...clean.split('/'));
    await vscode.commands.executeCommand('vscode.open', uri);
  }
}

function assetsOf(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
}

/** Scripts on, and nothing loadable but the board's own bundle folder. */
function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [assetsOf(extensionUri)] };
}

/** "LoopX Board", and the folder's name when the workspace has several folders. */
function boardTitle(ctx: Services): string {
  const many = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
  return many ? `LoopX Board · ${basename(ctx.session.root)}` : 'LoopX Board';
}

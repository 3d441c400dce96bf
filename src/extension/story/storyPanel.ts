import * as vscode from 'vscode';
import { basename } from 'node:path';
import { writeFileSync } from 'node:fs';
import { type StoryReader, goalStory, storyReader } from '../../kernel/readModels/story';
import { logHead } from '../../kernel/events/anchor';
import { reviewFacts } from '../../kernel/readModels/reviewFacts';
import { printPdf } from '../../runtime/projections/printPdf';
import { LoopxError } from '../../kernel/errors';
import { STORY_VIEW_TYPE, type Story, type ToStoryWebview } from '../../protocol/story/storyProtocol';
import { parseToStoryHost } from '../../protocol/story/storySchemas';
import { reviewPage } from '../../protocol/story/reviewPage';
import { Disposable, MutableDisposable } from '../util/lifecycle';
import { webviewPage } from '../util/webviewPage';
import type { Services } from '../services';
import { listGoals } from '../../kernel/goals/goalQueries';
import { exportTarget } from './exportTarget';

/**
 * A change in the store re-reads the story at most this often, and never more than a tenth of the time: the story
 * reads the goal's whole log, so a goal with a long history refreshes less often while agents write.
 */
const REFRESH_MS = 1000;

/** The viewer's offset from UTC in minutes (east positive), so a story's days are theirs. */
export function localOffsetMinutes(now = Date.now()): number {
  return -new Date(now).getTimezoneOffset();
}

/** The window's story panel: one at a time, beside the board, on one folder's store and one goal. */
export class Stories extends Disposable {
  private current: StoryPanel | undefined;

  get panel(): StoryPanel | undefined {
    return this.current;
  }

  show(ctx: Services, goalId: string | undefined): StoryPanel {
    const open = this.current;
    if (open && open.ctx === ctx) {
      if (goalId) open.pick(goalId);
      open.panel.reveal(vscode.ViewColumn.Beside);
      return open;
    }
    open?.dispose();
    const assets = vscode.Uri.joinPath(ctx.extensionUri, 'dist', 'webview');
    const panel = vscode.window.createWebviewPanel(STORY_VIEW_TYPE, 'LoopX Story', vscode.ViewColumn.Beside, {
      enableScripts: true,
      localResourceRoots: [assets],
      retainContextWhenHidden: false,
    });
    panel.iconPath = vscode.Uri.joinPath(ctx.extensionUri, 'media', 'icon.svg');
    const story = (this.current = new StoryPanel(panel, ctx, goalId));
    this.register(panel.onDidDispose(() => this.current === story && (this.current = undefined)));
    return story;
  }
}

/**
 * The goal story webview: a timeline, a burn-down, throughput per day, where the time went and cost per day, drawn
 * from the kernel's story of the goal. Same conventions as the board: strict CSP with a nonce, assets only from
 * dist/webview, every inbound message parsed with zod; it follows the store (throttled) while it is open.
 */
export class StoryPanel extends Disposable {
  private goalId: string | undefined;
  private readonly following = this.register(new MutableDisposable<vscode.Disposable>());
  private timer: NodeJS.Timeout | undefined;
  /** How long the last story took to build. */
  private lastBuildMs = 0;
  /** The goal's story read so far: a refresh reads only the events since. */
  private reader: { goalId: string; offset: number; reader: StoryReader } | undefined;
  /** Messages refused by validation, and the last story sent (tests read them). */
  readonly refused: string[] = [];
  last: Story | undefined;

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly ctx: Services,
    goalId: string | undefined,
  ) {
    super();
    this.goalId = goalId;
    panel.webview.html = webviewPage(panel.webview, vscode.Uri.joinPath(ctx.extensionUri, 'dist', 'webview'), {
      bundle: 'story',
      title: 'LoopX Story',
      loading: 'Reading the story…',
    });
    this.register(panel.webview.onDidReceiveMessage((m: unknown) => void this.receive(m)));
    this.following.value = ctx.model.onDidChange(() => this.schedule());
    this.register(panel.onDidDispose(() => this.dispose()));
    this.register({ dispose: () => clearTimeout(this.timer) });
  }

  override dispose(): void {
    super.dispose();
    this.panel.dispose();
  }

  pick(goalId: string): void {
    this.goalId = goalId;
    this.push();
  }

  async receive(message: unknown): Promise<void> {
    const parsed = parseToStoryHost(message);
    if (!parsed.ok) {
      this.refused.push(parsed.problem);
      this.ctx.log.warn(`story: refused a webview message (${parsed.problem})`);
      return;
    }
    const m = parsed.value;
    switch (m.type) {
      case 'ready':
        this.push();
        return;
      case 'pickGoal':
        this.pick(m.goalId);
        return;
      case 'openTodo':
        this.ctx.board.show(this.ctx, { todoId: m.todoId, goalId: null });
        return;
      case 'export':
        await this.export(m.format);
        return;
    }
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.push();
      },
      Math.max(REFRESH_MS, 10 * this.lastBuildMs),
    );
  }

  /** Builds the goal's story and sends it (the goal picked, else the first active one, else the first). */
  push(): void {
    const kernel = this.ctx.session.kernel;
    if (!kernel) return;
    let message: ToStoryWebview;
    const started = Date.now();
    try {
      message = kernel.read((db, now) => {
        const goals = listGoals(db);
        const goal = goals.find((g) => g.id === this.goalId) ?? goals.find((g) => g.status === 'active') ?? goals[0];
        if (!goal) return { type: 'empty', message: 'No goals yet: a story starts with a goal (LoopX: New Goal).' } as const;
        this.goalId = goal.id;
        const offset = localOffsetMinutes(now);
        const head = logHead(db)?.seq ?? 0;
        // Another goal, another time zone, or a log now shorter than what was read (a restore): read it again.
        if (this.reader?.goalId !== goal.id || this.reader.offset !== offset || head < this.reader.reader.lastSeq)
          this.reader = { goalId: goal.id, offset, reader: storyReader(goal.id, offset) };
        this.reader.reader.read(db);
        const story = this.reader.reader.build(db, now);
        this.last = story;
        return { type: 'story', story, goals: goals.map((g) => ({ id: g.id, title: g.title })) } as const;
      });
    } catch (error) {
      this.ctx.log.error('story: could not read the story', error);
      message = { type: 'empty', message: `The story could not be read: ${(error as Error).message}` };
    }
    this.lastBuildMs = Date.now() - started;
    this.panel.title = this.goalId ? `LoopX Story · ${this.goalId}` : 'LoopX Story';
    void this.panel.webview.postMessage(message);
  }

  /** The goal's review page (its story and packet) as HTML or PDF, where the person says. */
  async export(format: 'html' | 'pdf'): Promise<string | undefined> {
    const kernel = this.ctx.session.kernel;
    const goalId = this.goalId;
    if (!kernel || !goalId) return undefined;
    const html = kernel.read((db, now) => {
      const facts = reviewFacts(db, now, goalId);
      return reviewPage({
        at: facts.at,
        workspace: basename(kernel.root),
        goals: facts.goals.map((review) => ({ review, story: goalStory(db, review.goal.id, now, localOffsetMinutes(now)) })),
      });
    });
    const target = await vscode.window.showSaveDialog({
      title: `Export the story of ${goalId} as ${format.toUpperCase()}`,
      defaultUri: vscode.Uri.file(exportTarget(`loopx-review-${goalId}.${format}`)),
      filters: format === 'html' ? { 'Web page': ['html'] } : { PDF: ['pdf'] },
    });
    if (!target) return undefined;
    try {
      if (format === 'html') writeFileSync(target.fsPath, html);
      else await printPdf(html, target.fsPath, kernel.storeDir);
    } catch (error) {
      if (error instanceof LoopxError && error.code === 'pdf_unavailable') {
        const choice = await vscode.window.showWarningMessage(`LoopX: ${error.message}. ${error.hint ?? ''}`, 'Export as HTML Instead');
        if (choice) return this.export('html');
        return undefined;
      }
      throw error;
    }
    const open = await vscode.window.showInformationMessage(`LoopX: the story of ${goalId} is in ${basename(target.fsPath)}.`, 'Open');
    if (open) await vscode.env.openExternal(target);
    return target.fsPath;
  }
}

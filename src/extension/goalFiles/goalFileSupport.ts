import * as vscode from 'vscode';
import { Disposable } from '../util/lifecycle';
import type { Log } from '../util/log';
import type { startGoalFileClient } from './languageClient';

interface ClientModule {
  startGoalFileClient: typeof startGoalFileClient;
}
type Started = Awaited<ReturnType<typeof startGoalFileClient>>;

export const GOAL_FILE_PATTERN = /\.goal\.md$/;
/** A file that mentions a goal or todo id (`G3`, `T12`): worth starting the server for its links. */
const MENTIONS_ID = /\b[GT][1-9][0-9]{0,9}\b/;

/**
 * Starts the goal-file language server the first time a `*.goal.md` file is open, and stops it with the window.
 * The client lives in its own bundle (dist/goalFileClient.js), loaded only then.
 */
export class GoalFileSupport extends Disposable {
  private started: Promise<Started | undefined> | undefined;
  private readonly channel: vscode.LogOutputChannel;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Log,
  ) {
    super();
    this.channel = this.register(vscode.window.createOutputChannel('LoopX Goal Files', { log: true }));
    this.register(vscode.workspace.onDidOpenTextDocument((doc) => this.consider(doc)));
    for (const doc of vscode.workspace.textDocuments) this.consider(doc);
  }

  /** Resolves once the server runs (for tests and commands that want its answers). */
  ready(): Promise<boolean> {
    return (this.started ?? Promise.resolve(undefined)).then((s) => s !== undefined);
  }

  /** A running server starts again, with the window's environment as it now is (the team store setting changed). */
  async restart(): Promise<void> {
    const running = await this.started;
    if (!running) return;
    await running.client.restart();
    this.log.info('goal-file language server restarted');
  }

  private consider(doc: vscode.TextDocument): void {
    if (this.started || doc.uri.scheme !== 'file') return;
    // Cheap checks first: a goal file, or a Markdown file that mentions an id (code comments follow once it runs).
    const wanted =
      GOAL_FILE_PATTERN.test(doc.uri.fsPath) ||
      (doc.languageId === 'markdown' && doc.lineCount < 20_000 && MENTIONS_ID.test(doc.getText()));
    if (wanted) this.started = this.start();
  }

  private async start(): Promise<Started | undefined> {
    try {
      const bundle = vscode.Uri.joinPath(this.extensionUri, 'dist', 'goalFileClient.js').fsPath;
      const server = vscode.Uri.joinPath(this.extensionUri, 'dist', 'languageServer.js').fsPath;
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a separate bundle, loaded on first use
      const { startGoalFileClient } = require(bundle) as ClientModule;
      const started = await startGoalFileClient(server, this.channel);
      this.register({ dispose: () => void started.dispose() });
      this.log.info('goal-file language server started');
      return started;
    } catch (error) {
      this.log.error('the goal-file language server did not start', error);
      return undefined;
    }
  }
}

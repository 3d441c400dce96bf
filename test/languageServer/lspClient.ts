import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type Diagnostic,
  type ProtocolConnection,
  PublishDiagnosticsNotification,
  StreamMessageReader,
  StreamMessageWriter,
  createProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { REPO } from '../cli/harness';
import { nodeBin } from '../e2e/profiles';

/** A Node like the editor's: this one when it has node:sqlite, else Node 22 from .cache (installed on first use). */
function editorNode(): string {
  return process.getBuiltinModule?.('node:sqlite') ? process.execPath : nodeBin(REPO, 22);
}

/**
 * A minimal LSP client over stdio for tests: starts dist/languageServer.js as the extension would, and speaks LSP. The
 * editor's bundle opens stores with node:sqlite only, so it runs on Node 22 (every VS Code from 1.105 has it), not on
 * this checkout's Node 20; `loopx lsp` (the CLI's dist/lsp.js) runs on whatever node the caller names.
 */
export class LspClient {
  readonly connection: ProtocolConnection;
  private readonly child: ChildProcess;
  private readonly diagnostics = new Map<string, { version?: number; diagnostics: Diagnostic[] }[]>();
  private waiters: (() => void)[] = [];
  /** The server's exit code (or signal) once it has ended. */
  readonly exited: Promise<number | string | null>;

  /** `args`: how to start the server (default: the bundle on stdio, as an editor configured with its path would). */
  constructor(
    env: NodeJS.ProcessEnv = process.env,
    args: string[] = [join(REPO, 'dist', 'languageServer.js'), '--stdio'],
    node: string = editorNode(),
  ) {
    this.child = spawn(node, args, { stdio: ['pipe', 'pipe', 'inherit'], env });
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve(code ?? signal)));
    this.connection = createProtocolConnection(
      new StreamMessageReader(this.child.stdout as NodeJS.ReadableStream),
      new StreamMessageWriter(this.child.stdin as NodeJS.WritableStream),
    );
    this.connection.onNotification(PublishDiagnosticsNotification.type, (p) => {
      const list = this.diagnostics.get(p.uri) ?? [];
      list.push({ version: p.version, diagnostics: p.diagnostics });
      this.diagnostics.set(p.uri, list);
      for (const w of this.waiters.splice(0)) w();
    });
    this.connection.onRequest('workspace/codeLens/refresh', () => null);
    this.connection.listen();
  }

  get pid(): number {
    return this.child.pid as number;
  }

  /** `editor: 'vscode'` says what the extension's client says (it has the LoopX commands); 'other' is any other editor. */
  async initialize(root: string, editor: 'vscode' | 'other' = 'vscode', processId: number | null = process.pid): Promise<unknown> {
    const result = await this.connection.sendRequest('initialize', {
      processId,
      rootUri: pathToFileURL(root).href,
      capabilities: { workspace: { codeLens: { refreshSupport: true } } },
      workspaceFolders: null,
      ...(editor === 'vscode' ? { initializationOptions: { loopxClient: 'vscode' } } : {}),
    });
    await this.connection.sendNotification('initialized', {});
    return result;
  }

  open(uri: string, text: string, version = 1): Promise<void> {
    return this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'markdown', version, text } });
  }

  change(uri: string, text: string, version: number): Promise<void> {
    return this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
  }

  /** Waits for the diagnostics published for a document that satisfy `accept` (the server publishes after each change). */
  async diagnosticsFor(uri: string, accept: (d: Diagnostic[], version?: number) => boolean, timeoutMs = 20_000): Promise<Diagnostic[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = (this.diagnostics.get(uri) ?? []).find((p) => accept(p.diagnostics, p.version));
      if (found) return found.diagnostics;
      if (Date.now() > deadline)
        throw new Error(`no matching diagnostics for ${uri}; got ${JSON.stringify(this.diagnostics.get(uri)?.at(-1))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 500);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Bytes straight onto the server's stdin, framing and all (for frames a real client would never send). */
  sendRaw(bytes: string): void {
    this.child.stdin?.write(bytes);
  }

  /** Closes the server's stdin with no shutdown or exit first, as an editor that crashed leaves it. */
  closeInput(): void {
    this.child.stdin?.end();
  }

  request<T>(method: string, params: unknown): Promise<T> {
    return this.connection.sendRequest(method, params) as Promise<T>;
  }

  async dispose(): Promise<void> {
    try {
      await this.connection.sendRequest('shutdown');
      await this.connection.sendNotification('exit');
    } catch {
      /* already gone */
    }
    this.connection.dispose();
    this.child.kill();
  }
}

import type * as vscode from 'vscode';
import { LanguageClient, type LanguageClientOptions, type ServerOptions, TransportKind } from 'vscode-languageclient/node';

/**
 * Entry of dist/goalFileClient.js: the language client for goal files, in its own bundle so that activating LoopX
 * does not load it; it is required when the first goal file opens (goalFileSupport.ts).
 */
export async function startGoalFileClient(serverModule: string, outputChannel: vscode.LogOutputChannel): Promise<{ client: LanguageClient; dispose(): Promise<void> }> {
  const run = { module: serverModule, transport: TransportKind.ipc };
  const serverOptions: ServerOptions = { run, debug: run };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', pattern: '**/*.goal.md' }],
    outputChannel,
  };
  const client = new LanguageClient('loopxGoalFiles', 'LoopX Goal Files', serverOptions, clientOptions);
  await client.start();
  return { client, dispose: () => client.stop() };
}

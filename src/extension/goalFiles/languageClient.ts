import type * as vscode from 'vscode';
import { LanguageClient, type LanguageClientOptions, type ServerOptions, TransportKind } from 'vscode-languageclient/node';

/** Languages whose files may mention todos in comments (and Markdown anywhere). */
export const ID_LANGUAGES = [
  'markdown',
  'typescript',
  'typescriptreact',
  'javascript',
  'javascriptreact',
  'python',
  'go',
  'rust',
  'java',
  'c',
  'cpp',
  'csharp',
  'ruby',
  'shellscript',
  'yaml',
];

/**
 * Entry of dist/goalFileClient.js: the language client for goal files, in its own bundle so that activating LoopX
 * does not load it; it is required when the first goal file opens (goalFileSupport.ts).
 */
export async function startGoalFileClient(
  serverModule: string,
  outputChannel: vscode.LogOutputChannel,
): Promise<{ client: LanguageClient; dispose(): Promise<void> }> {
  const run = { module: serverModule, transport: TransportKind.ipc };
  const serverOptions: ServerOptions = { run, debug: run };
  const clientOptions: LanguageClientOptions = {
    // Goal files get everything; Markdown and code get links and hovers on G3/T12 ids (in code, inside comments).
    documentSelector: [{ scheme: 'file', pattern: '**/*.goal.md' }, ...ID_LANGUAGES.map((language) => ({ scheme: 'file', language }))],
    outputChannel,
    // The server offers lenses that run LoopX commands only to this client (other editors have none of them).
    initializationOptions: { loopxClient: 'vscode' },
  };
  const client = new LanguageClient('loopxGoalFiles', 'LoopX Goal Files', serverOptions, clientOptions);
  await client.start();
  return { client, dispose: () => client.stop() };
}

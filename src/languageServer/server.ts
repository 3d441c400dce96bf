import { fileURLToPath } from 'node:url';
import {
  CodeLensRefreshRequest,
  ProposedFeatures,
  StreamMessageReader,
  StreamMessageWriter,
  TextDocumentSyncKind,
  TextDocuments,
  createConnection,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { type Analysis, analyze } from './analysis';
import { type EditorKind, codeActions, codeLenses, completions, hover } from './features';
import { StoreRegistry } from './storeRegistry';
import { documentLinks, idHover } from './links';
import { GOAL_FILE_SUFFIX } from '../goalFile/parse';
import { FrontMatterParser } from '../goalFile/frontMatterYaml';
import { FramingFilter } from './framing';

/**
 * The goal-file language server: diagnostics, completion, hover with live state, code lenses and quick fixes for
 * `*.goal.md`. It reads stores read-only and follows them with the kernel's watcher; it never writes a store or a
 * file (fixes are edits the person sees and saves; "Apply to store" is the extension's command).
 */
// On stdio (other editors), frames are checked first: a bad Content-Length must not leave the server deaf.
const onStdio = process.argv.includes('--stdio');
const connection = onStdio
  ? createConnection(
      ProposedFeatures.all,
      new StreamMessageReader(process.stdin.pipe(new FramingFilter())),
      new StreamMessageWriter(process.stdout),
    )
  : createConnection(ProposedFeatures.all);
let shutdownAsked = false;
if (onStdio) {
  // The editor is gone when its end of stdin closes, whatever `processId` said (a live pid keeps vscode-languageserver's
  // own check content). The library exits at the end of input only on a stream it reads itself, not through our reader.
  // The messages that came before the end are answered first (a client may write its whole session and close stdin:
  // its `exit` then ends the server through the library); the end of input ends it a moment later whatever happens.
  let ending = false;
  const exitAtEnd = () => {
    if (ending) return;
    ending = true;
    setTimeout(() => process.exit(shutdownAsked ? 0 : 1), 1000);
  };
  process.stdin.once('end', exitAtEnd);
  process.stdin.once('close', exitAtEnd);
}
const documents = new TextDocuments(TextDocument);
const analyses = new Map<string, { version: number; analysis: Analysis }>();
/** Each open goal file's parser, kept across its versions: an edit re-parses only the todos it touched. */
const parsers = new Map<string, FrontMatterParser>();
/** Milliseconds from a change reaching the server to its diagnostics sent, newest last (`loopx/timings`). */
const changeToDiagnostics: number[] = [];
let refreshLenses = false;
/** VS Code (our client, with the LoopX commands) or another editor: what the lenses may offer. */
let editor: EditorKind = 'other';

const registry = new StoreRegistry(() => {
  // The store changed (an agent, the board, an apply): every open goal file is checked again.
  analyses.clear();
  for (const doc of documents.all()) publish(doc);
  if (refreshLenses) void connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
});

/** Goal files get every feature; other files (Markdown, code) only links and hovers on G3/T12 ids. */
const isGoalFile = (doc: TextDocument) => doc.uri.startsWith('file:') && doc.uri.endsWith(GOAL_FILE_SUFFIX);

function analysisOf(doc: TextDocument): Analysis | null {
  if (!isGoalFile(doc)) return null;
  const cached = analyses.get(doc.uri);
  if (cached && cached.version === doc.version) return cached.analysis;
  let parser = parsers.get(doc.uri);
  if (!parser) parsers.set(doc.uri, (parser = new FrontMatterParser()));
  const analysis = analyze(doc.getText(), fileURLToPath(doc.uri), registry, Date.now(), parser);
  analyses.set(doc.uri, { version: doc.version, analysis });
  return analysis;
}

/** Messages shared with the CLI quote keys in backticks (Markdown); an editor shows them as plain text: 'priority'. */
const quoted = (message: string) => message.replace(/`([^`\n]+)`/g, "'$1'");

function publish(doc: TextDocument): void {
  const analysis = analysisOf(doc);
  if (analysis)
    void connection.sendDiagnostics({
      uri: doc.uri,
      version: doc.version,
      diagnostics: analysis.diagnostics.map((d) => (typeof d.message === 'string' ? { ...d, message: quoted(d.message) } : d)),
    });
}

connection.onInitialize((params) => {
  refreshLenses = params.capabilities.workspace?.codeLens?.refreshSupport === true;
  editor = (params.initializationOptions as { loopxClient?: unknown } | undefined)?.loopxClient === 'vscode' ? 'vscode' : 'other';
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      completionProvider: { triggerCharacters: [' ', '[', ',', '/', '-', '@'] },
      hoverProvider: true,
      codeLensProvider: { resolveProvider: false },
      codeActionProvider: { codeActionKinds: ['quickfix'] },
      documentLinkProvider: { resolveProvider: false },
    },
    serverInfo: { name: 'loopx-goal-files' },
  };
});

// Fired inside the didOpen/didChange handler, right after the text is updated: what follows is the server's time.
let lastChange: { itemsParsed: number; itemsReused: number; storeReads: number } | null = null;
documents.onDidChangeContent(({ document }) => {
  const started = performance.now();
  const store = isGoalFile(document) ? registry.forFile(fileURLToPath(document.uri)).store : null;
  const readsBefore = store?.snapshot.misses ?? 0;
  publish(document);
  changeToDiagnostics.push(performance.now() - started);
  if (changeToDiagnostics.length > 200) changeToDiagnostics.shift();
  const stats = parsers.get(document.uri)?.stats;
  if (stats)
    lastChange = {
      itemsParsed: stats.itemsParsed,
      itemsReused: stats.itemsReused,
      storeReads: (store?.snapshot.misses ?? 0) - readsBefore,
    };
});
/** What the last change cost: for the benchmark, and for tests that an edit re-parses and re-reads only what changed. */
connection.onRequest('loopx/timings', () => ({ changeToDiagnosticsMs: [...changeToDiagnostics], lastChange }));
documents.onDidClose(({ document }) => {
  analyses.delete(document.uri);
  parsers.delete(document.uri);
  void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
});
// A missed watch event (network disks) is caught when the person comes back to the file.
documents.onDidSave(() => registry.checkAll());

const withDoc = <T>(uri: string, fallback: T, fn: (doc: TextDocument, a: Analysis) => T): T => {
  const doc = documents.get(uri);
  const a = doc && analysisOf(doc);
  return doc && a ? fn(doc, a) : fallback;
};
connection.onCompletion((p) => withDoc(p.textDocument.uri, [], (doc, a) => completions(a, doc.getText(), p.position)));
connection.onHover((p) => {
  const doc = documents.get(p.textDocument.uri);
  if (!doc) return null;
  const a = analysisOf(doc);
  return (a && hover(a, doc.getText(), p.position)) ?? idHover(doc, p.position, registry);
});
connection.onDocumentLinks((p) => {
  const doc = documents.get(p.textDocument.uri);
  return doc ? documentLinks(doc, registry) : [];
});
connection.onCodeLens((p) => withDoc(p.textDocument.uri, [], (_doc, a) => codeLenses(a, p.textDocument.uri, editor)));
connection.onCodeAction((p) =>
  codeActions(
    p.textDocument.uri,
    p.context.diagnostics,
    withDoc(p.textDocument.uri, null, (_doc, a) => a.store?.root ?? null),
    editor,
  ),
);
connection.onShutdown(() => {
  shutdownAsked = true;
  registry.dispose();
});

documents.listen(connection);
connection.listen();

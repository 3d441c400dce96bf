/**
 * Whether LoopX can start in this editor. It keeps its store with the SQLite built into the editor's Node
 * (node:sqlite) and ships no native driver, so an extension host without node:sqlite cannot open any store: activation
 * then says so in words and starts nothing (extension.ts). No `vscode` import: the rule is tested as plain code.
 */

/**
 * The first VS Code whose extension host has a working node:sqlite on every platform: 1.101 moved to Electron 35
 * (Node 22), Electron 37.2.0 lost the binding (electron/electron#47671) until 37.2.3, and 1.105 runs Electron 37.6 on
 * Node 22.19. package.json's engines.vscode says the same (a test holds them together).
 */
export const VSCODE_FLOOR = '1.105';

export interface EditorRuntime {
  vscodeVersion: string;
  node: string;
  hasNodeSqlite: boolean;
}

/** Why LoopX cannot start here, in sentences with what to do; undefined when it can. */
export function whyLoopxCannotStart(runtime: EditorRuntime): string | undefined {
  if (runtime.hasNodeSqlite) return undefined;
  const what = `LoopX cannot start in VS Code ${runtime.vscodeVersion}: it keeps its store with the SQLite built into the editor (node:sqlite), which this editor's Node ${runtime.node} lacks.`;
  return olderThan(runtime.vscodeVersion, VSCODE_FLOOR)
    ? `${what} Update to VS Code ${VSCODE_FLOOR} or newer (or Cursor 2.1 or newer), then reload the window.`
    : `${what} Update the editor; if node:sqlite was turned off (--no-experimental-sqlite), turn it back on. Then reload the window.`;
}

/** `a` < `b`, comparing dotted numbers ("1.104.3" < "1.105"); anything unreadable counts as 0. */
function olderThan(a: string, b: string): boolean {
  const parts = (v: string) => v.split(/[.-]/).map((p) => Number.parseInt(p, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d < 0;
  }
  return false;
}

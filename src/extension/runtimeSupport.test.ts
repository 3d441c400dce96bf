import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { VSCODE_FLOOR, whyLoopxCannotStart } from './runtimeSupport';

test('engines.vscode is the floor the runtime check names: the first VS Code with node:sqlite on every platform', () => {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    engines: { vscode: string };
    devDependencies: Record<string, string>;
  };
  expect(pkg.engines.vscode).toBe(`^${VSCODE_FLOOR}.0`);
  // The API the code compiles against is the floor's, so nothing newer slips in.
  expect(pkg.devDependencies['@types/vscode']).toBe(`${VSCODE_FLOOR}.0`);
});

test('an editor whose Node has node:sqlite starts', () => {
  expect(whyLoopxCannotStart({ vscodeVersion: '1.105.1', node: '22.19.0', hasNodeSqlite: true })).toBeUndefined();
  expect(whyLoopxCannotStart({ vscodeVersion: '1.139.1', node: '24.15.0', hasNodeSqlite: true })).toBeUndefined();
});

test('an older VS Code without node:sqlite is told to update to the floor, in words with its versions', () => {
  const said = whyLoopxCannotStart({ vscodeVersion: '1.100.3', node: '20.19.0', hasNodeSqlite: false });
  expect(said).toBe(
    'LoopX cannot start in VS Code 1.100.3: it keeps its store with the SQLite built into the editor (node:sqlite), which ' +
      "this editor's Node 20.19.0 lacks. Update to VS Code 1.105 or newer (or Cursor 2.1 or newer), then reload the window.",
  );
  expect(whyLoopxCannotStart({ vscodeVersion: '1.104.3', node: '22.17.0', hasNodeSqlite: false })).toContain('Update to VS Code 1.105');
});

test('a VS Code at or past the floor that still lacks node:sqlite (turned off) is not told to update to what it runs', () => {
  const said = whyLoopxCannotStart({ vscodeVersion: '1.105.1', node: '22.19.0', hasNodeSqlite: false }) ?? '';
  expect(said).toContain("this editor's Node 22.19.0 lacks");
  expect(said).not.toContain('Update to VS Code 1.105');
  expect(said).toContain('--no-experimental-sqlite');
  expect(said).toMatch(/reload the window\.$/);
});

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';

const REPO = join(__dirname, '..');

test('the .vsix holds the bundles, the manifest and the SQLite driver, and nothing else', () => {
  const vsce = join(REPO, 'node_modules', '.bin', 'vsce');
  const files = execFileSync(vsce, ['ls'], { cwd: REPO, encoding: 'utf8' }).trim().split('\n');
  for (const needed of [
    'package.json',
    'CHANGELOG.md',
    'dist/extension.js',
    'dist/cli.js',
    'dist/agent/todo-claim.js',
    'dist/mcp.js',
    'dist/languageServer.js',
    'dist/goalFileClient.js',
    'dist/webview/board.js',
    'dist/webview/board.css',
    'dist/webview/codicon.ttf',
    'bin/loopx',
    'bin/loopx-sample-agent',
    'dist/sampleAgent.js',
    'media/icon.svg',
    'node_modules/better-sqlite3/lib/index.js',
    'node_modules/better-sqlite3/build/Release/better_sqlite3.node',
    'node_modules/bindings/bindings.js',
  ]) {
    expect(files).toContain(needed);
  }
  const unwanted = files.filter((f) =>
    /^(src|test|bench|scripts|docs|\.cache|test-results)\/|\.map$|\.ts$|node_modules\/(vitest|esbuild|zod|better-sqlite3\/(src|deps))/.test(
      f,
    ),
  );
  expect(unwanted).toEqual([]);
  expect(files.length).toBeLessThan(80); // about 40, and a bundle for each verb of an agent's turn
}, 60_000);

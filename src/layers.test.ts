import { ESLint } from 'eslint';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

/**
 * The layer rules in eslint.config.mjs fire on a wrong import in each layer, and stay quiet on a right one. Each case
 * lints a line as if it were written in a real file of that layer; only the import rule runs (no type information).
 */
const eslint = new ESLint({
  cwd: resolve(__dirname, '..'),
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
});

async function problems(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\n`, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
}

const WRONG: [layer: string, file: string, code: string][] = [
  ['kernel → cli', 'src/kernel/errors.ts', "import { parseArgs } from '../cli/args';"],
  ['kernel → extension', 'src/kernel/errors.ts', "import { LoopxApp } from '../extension/app';"],
  ['kernel → protocol', 'src/kernel/todos/claims.ts', "import { errorBody } from '../../protocol/errors';"],
  ['kernel → goalFile', 'src/kernel/errors.ts', "import { readGoalFile } from '../goalFile/read';"],
  ['kernel → languageServer', 'src/kernel/errors.ts', "import { startServer } from '../languageServer/server';"],
  ['kernel → vscode', 'src/kernel/errors.ts', "import * as vscode from 'vscode';"],
  ['kernel → runtime', 'src/kernel/turns/turns.ts', "import { hostCommand } from '../../runtime/hosts';"],
  ['runtime → cli', 'src/runtime/hosts.ts', "import { parseArgs } from '../cli/args';"],
  ['runtime → extension', 'src/runtime/launchers.ts', "import { LoopxApp } from '../extension/app';"],
  ['runtime → goalFile', 'src/runtime/hosts.ts', "import { readGoalFile } from '../goalFile/read';"],
  ['runtime → languageServer', 'src/runtime/watch.ts', "import { startServer } from '../languageServer/server';"],
  ['runtime → vscode', 'src/runtime/hosts.ts', "import * as vscode from 'vscode';"],
  ['protocol → runtime', 'src/protocol/errors.ts', "import { shellQuote } from '../runtime/hosts';"],
  ['shared → runtime', 'src/shared/hiddenChars.ts', "import { shellQuote } from '../runtime/hosts';"],
  ['webview → runtime', 'webview-ui/src/main.ts', "import { shellQuote } from '../../src/runtime/hosts';"],
  ['protocol → kernel', 'src/protocol/errors.ts', "import { Kernel } from '../kernel/kernel';"],
  ['protocol → cli', 'src/protocol/errors.ts', "import { runCli } from '../cli/main';"],
  ['protocol → extension', 'src/protocol/errors.ts', "import type { Services } from '../extension/services';"],
  ['protocol → node:fs', 'src/protocol/errors.ts', "import { readFileSync } from 'node:fs';"],
  ['protocol → path', 'src/protocol/errors.ts', "import { join } from 'path';"],
  ['shared → kernel', 'src/shared/hiddenChars.ts', "import { Kernel } from '../kernel/kernel';"],
  ['shared → protocol', 'src/shared/hiddenChars.ts', "import { clean } from '../protocol/display';"],
  ['shared → node:os', 'src/shared/hiddenChars.ts', "import { EOL } from 'node:os';"],
  ['cli → extension', 'src/cli/args.ts', "import { LoopxApp } from '../extension/app';"],
  ['cli → vscode', 'src/cli/commands/status.ts', "import * as vscode from 'vscode';"],
  ['goalFile → cli', 'src/goalFile/read.ts', "import { runCli } from '../cli/main';"],
  ['languageServer → extension', 'src/languageServer/server.ts', "import { LoopxApp } from '../extension/app';"],
  ['webview → kernel', 'webview-ui/src/main.ts', "import { Kernel } from '../../src/kernel/kernel';"],
  ['webview → extension', 'webview-ui/src/main.ts', "import { BoardPanel } from '../../src/extension/board/boardPanel';"],
  ['webview → node:path', 'webview-ui/src/main.ts', "import { join } from 'node:path';"],
  ['webview → vscode', 'webview-ui/src/main.ts', "import * as vscode from 'vscode';"],
];

const RIGHT: [layer: string, file: string, code: string][] = [
  ['kernel → kernel', 'src/kernel/errors.ts', "import { iso } from './time';"],
  ['kernel → shared', 'src/kernel/validate.ts', "import { codePoint } from '../shared/hiddenChars';"],
  [
    'runtime → kernel and shared',
    'src/runtime/launchers.ts',
    "import { finishTurn } from '../kernel/turns/turnFinish';\nimport { revealHidden } from '../shared/hiddenChars';",
  ],
  ['runtime → protocol', 'src/runtime/describeError.ts', "import { errorBody } from '../protocol/errors';"],
  ['cli → runtime', 'src/cli/commands/run.ts', "import { DEFAULT_HOSTS } from '../../runtime/hosts';"],
  ['extension → runtime', 'src/extension/turns/turnRunner.ts', "import { pruneTurnFolders } from '../../runtime/turnFolders';"],
  ['languageServer → runtime', 'src/languageServer/storeRegistry.ts', "import { StoreWatcher } from '../runtime/watch';"],
  ['webview → shared', 'webview-ui/src/main.ts', "import { revealHidden } from '../../src/shared/hiddenChars';"],
  ['protocol → protocol', 'src/protocol/errors.ts', "import { clean } from './display';"],
  ['protocol → zod', 'src/protocol/boardSchemas.ts', "import * as z from 'zod';"],
  [
    'cli → kernel and protocol',
    'src/cli/args.ts',
    "import { EXIT } from '../kernel/errors';\nimport { errorBody } from '../protocol/errors';",
  ],
  [
    'extension → everything inside',
    'src/extension/app.ts',
    "import { Kernel } from '../kernel/kernel';\nimport { errorBody } from '../protocol/errors';",
  ],
  ['webview → protocol', 'webview-ui/src/main.ts', "import type { ToWebview } from '../../src/protocol/boardProtocol';"],
  ['a kernel test may pin the kernel against the protocol', 'src/kernel/busy.test.ts', "import { errorBody } from '../protocol/errors';"],
];

describe('lint keeps the layers', () => {
  test.each(WRONG)('%s is refused', async (_layer, file, code) => {
    const found = await problems(file, code);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^no-restricted-imports: /);
  });

  test.each(RIGHT)('%s is allowed', async (_layer, file, code) => {
    expect(await problems(file, code)).toEqual([]);
  });
});

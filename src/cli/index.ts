import type { createRequire as CreateRequire } from 'node:module';
import { join } from 'node:path';
import { runCli } from './main';
import { EXIT, type LoopxError } from '../kernel/errors';
import { requireStoreDriver } from '../kernel/db/openDb';
import { processIo, runProcess } from './processIo';
import { CLI_COMMANDS } from './registry';
import { renderTurnProgress } from './commands/turnProgress';
import type { serveMcp as ServeMcp } from './mcp/server';

/**
 * The whole CLI (dist/cli.js): every command, help and `loopx mcp`. bin/loopx loads it for every call that is not
 * a verb with a bundle of its own (agentCommands.ts).
 */
export function main(argv: readonly string[]): void {
  if (argv[0] === 'mcp' && !argv.includes('--help') && !argv.includes('-h')) {
    // A runtime that can open no store refuses to serve at all: a client would show it connected and every call fail.
    try {
      requireStoreDriver();
    } catch (error) {
      const e = error as LoopxError;
      process.stderr.write(`loopx mcp: ${e.message}${e.hint ? `\nhint: ${e.hint}` : ''}\n`);
      process.exitCode = e.exitCode;
      return;
    }
    // The MCP server lives in its own bundle (dist/mcp.js) so that every other command starts without it.
    const root = argv[argv.indexOf('--root') + 1];
    const { createRequire } = process.getBuiltinModule('node:module') as { createRequire: typeof CreateRequire };
    const { serveMcp } = createRequire(__filename)(join(__dirname, 'mcp.js')) as { serveMcp: typeof ServeMcp };
    serveMcp({ env: process.env, cwd: process.cwd(), root: argv.includes('--root') ? root : undefined }).catch((error: unknown) => {
      process.stderr.write(`loopx mcp: ${(error as Error).message}\n`);
      process.exitCode = EXIT.internal;
    });
  } else if (argv[0] === 'lsp' && !argv.includes('--help') && !argv.includes('-h')) {
    // The language server is its own bundle too (dist/lsp.js: the editor's dist/languageServer.js opens stores with
    // node:sqlite only, and this terminal may run Node 20); it reads its transport from the process's arguments.
    if (!process.argv.includes('--stdio')) process.argv.push('--stdio');
    const { createRequire } = process.getBuiltinModule('node:module') as { createRequire: typeof CreateRequire };
    createRequire(__filename)(join(__dirname, 'lsp.js'));
  } else if (argv[0] === 'turn' && argv[1] === 'progress' && !argv.includes('--help') && !argv.includes('-h')) {
    // A filter over stdin for as long as the host writes, not a command with one result.
    renderTurnProgress(argv, !process.env.NO_COLOR && process.stdout.isTTY === true);
  } else {
    runProcess(runCli(argv, processIo(), CLI_COMMANDS));
  }
}

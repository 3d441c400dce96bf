import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isatty } from 'node:tty';
import { runCli } from './main';
import { readLineSync } from './humanChannel';
import type { serveMcp as ServeMcp } from './mcp/server';

const argv = process.argv.slice(2);
if (argv[0] === 'mcp' && !argv.includes('--help') && !argv.includes('-h')) {
  // The MCP server lives in its own bundle (dist/mcp.js) so that every other command starts without it.
  const root = argv[argv.indexOf('--root') + 1];
  const { serveMcp } = createRequire(__filename)(join(__dirname, 'mcp.js')) as { serveMcp: typeof ServeMcp };
  serveMcp({ env: process.env, cwd: process.cwd(), root: argv.includes('--root') ? root : undefined }).catch((error: unknown) => {
    process.stderr.write(`loopx mcp: ${(error as Error).message}\n`);
    process.exitCode = 1;
  });
} else {
  // Entry point of the bundled CLI (dist/cli.js, started by bin/loopx).
  void runCli(argv, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    isTty: process.stdout.isTTY === true,
    // isatty, not process.stdin.isTTY: creating the stdin stream would make fd 0 non-blocking for readLineSync.
    interactive: isatty(0) && isatty(1),
    readLine: readLineSync,
  }).then((code) => {
    process.exitCode = code;
  });
}

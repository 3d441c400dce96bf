import { runCli } from './main';

// Entry point of the bundled CLI (dist/cli.js, started by bin/loopx).
process.exitCode = runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  isTty: process.stdout.isTTY === true,
});

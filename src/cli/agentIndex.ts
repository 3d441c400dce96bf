import { runCli } from './main';
import { processIo, runProcess } from './processIo';
import { findCommand } from './command';
import { AGENT_COMMANDS } from './agentCommands';

/**
 * The agent bundle (dist/cli-agent.js): only the verbs agents call hundreds of times a day, so a call reads,
 * compiles and runs a fraction of the whole CLI. Returns false, having done nothing, for any other call (help, a
 * person's decision, a goal file); bin/loopx then hands it to the whole CLI (dist/cli.js).
 */
export function main(argv: readonly string[]): boolean {
  const found = findCommand(argv, AGENT_COMMANDS);
  if (!found) return false;
  runProcess(found.command.load().then((command) => runCli(argv, processIo(), [command])));
  return true;
}

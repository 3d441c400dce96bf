import { runCli } from './main';
import { processIo, runProcess } from './processIo';
import { AGENT_COMMANDS, agentHandles } from './agentCommands';

/**
 * The agent bundle (dist/cli-agent.js): only the verbs agents call hundreds of times a day, so a call reads,
 * compiles and runs a fraction of the whole CLI. Returns false, having done nothing, for any other call (help, a
 * person's decision, a goal file); bin/loopx then hands it to the whole CLI (dist/cli.js).
 */
export function main(argv: readonly string[]): boolean {
  if (!agentHandles(argv)) return false;
  runProcess(runCli(argv, processIo(), AGENT_COMMANDS));
  return true;
}

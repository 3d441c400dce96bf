import { type Command, findCommand } from './command';
import { status } from './commands/status';
import { goalList } from './commands/goalList';
import { goalShow } from './commands/goalShow';
import { todoAdd } from './commands/todoAdd';
import { todoList } from './commands/todoList';
import { todoNext } from './commands/todoNext';
import { todoShow } from './commands/todoShow';
import { todoClaim } from './commands/todoClaim';
import { todoRenew } from './commands/todoRenew';
import { todoRelease } from './commands/todoRelease';
import { todoShip } from './commands/todoShip';
import { todoBlock } from './commands/todoBlock';
import { evidenceAdd } from './commands/evidenceAdd';
import { evidenceList } from './commands/evidenceList';
import { gateAsk } from './commands/gateAsk';
import { gateList } from './commands/gateList';
import { quotaShow } from './commands/quotaShow';
import { quotaShouldRun } from './commands/quotaShouldRun';
import { handoff } from './commands/handoff';
import { handoffAccept } from './commands/handoffAccept';
import { turnStart } from './commands/turnStart';
import { turnFinish } from './commands/turnFinish';
import { monitorTick } from './commands/monitor';

/**
 * The verbs of an agent's turn, which agents call hundreds of times a day: the agent bundle (dist/cli-agent.js)
 * holds these and what they import, and nothing else. The same command objects as the whole CLI's (registry.ts),
 * so a call behaves the same in either bundle; agentCommands.test.ts holds the two lists together.
 */
export const AGENT_COMMANDS: readonly Command[] = [
  status,
  goalList,
  goalShow,
  todoAdd,
  todoList,
  todoNext,
  todoShow,
  todoClaim,
  todoRenew,
  todoRelease,
  todoShip,
  todoBlock,
  evidenceAdd,
  evidenceList,
  gateAsk,
  gateList,
  quotaShow,
  quotaShouldRun,
  handoff,
  handoffAccept,
  turnStart,
  turnFinish,
  monitorTick,
];

/** Whether the agent bundle answers this call: one of its verbs (help and --version belong to the whole CLI). */
export function agentHandles(argv: readonly string[]): boolean {
  return findCommand(argv, AGENT_COMMANDS) !== null;
}

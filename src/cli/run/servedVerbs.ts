import type { Command } from '../command';
import { status } from '../commands/status';
import { goalList } from '../commands/goalList';
import { goalShow } from '../commands/goalShow';
import { todoAdd } from '../commands/todoAdd';
import { todoList } from '../commands/todoList';
import { todoNext } from '../commands/todoNext';
import { todoShow } from '../commands/todoShow';
import { todoClaim } from '../commands/todoClaim';
import { todoRenew } from '../commands/todoRenew';
import { todoRelease } from '../commands/todoRelease';
import { todoShip } from '../commands/todoShip';
import { todoBlock } from '../commands/todoBlock';
import { evidenceAdd } from '../commands/evidenceAdd';
import { evidenceList } from '../commands/evidenceList';
import { gateAsk } from '../commands/gateAsk';
import { gateList } from '../commands/gateList';
import { quotaShow } from '../commands/quotaShow';
import { quotaShouldRun } from '../commands/quotaShouldRun';
import { handoff } from '../commands/handoff';
import { handoffAccept } from '../commands/handoffAccept';

/**
 * The agent verbs a runner answers for its turns' agents (verbServer.ts): each one that only reads the store (not
 * `mutates`), or only writes it (`Command.storeOnly`: no file, process or wait of its own), so running it in the runner's process does
 * exactly what the agent's own process would. `turn start` (a worktree, git, the prompt file), `monitor tick` (runs
 * checks) and `turn finish` (reads the host's usage files as its caller finds them) are not here; `todo add --check`
 * (a person confirms it) is not served, decided per call. servedVerbs.test.ts holds this list
 * to agentVerbs.json: every agent verb that reads or only writes the store, and nothing else.
 */
export const SERVED_VERBS: readonly Command[] = [
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
];

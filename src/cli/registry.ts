import type { Command } from './command';
import { init } from './commands/init';
import { goalCreate } from './commands/goalCreate';
import { goalList } from './commands/goalList';
import { goalShow } from './commands/goalShow';
import { goalDone, goalPause, goalResume, goalStop } from './commands/goalLifecycle';
import { goalApply } from './commands/goalApply';
import { goalExport } from './commands/goalExport';
import { todoAdd } from './commands/todoAdd';
import { todoList } from './commands/todoList';
import { todoNext } from './commands/todoNext';
import { todoShow } from './commands/todoShow';
import { todoClaim } from './commands/todoClaim';
import { todoRenew } from './commands/todoRenew';
import { todoRelease } from './commands/todoRelease';
import { todoShip } from './commands/todoShip';
import { todoBlock } from './commands/todoBlock';
import { todoUnblock } from './commands/todoUnblock';
import { todoKill } from './commands/todoKill';
import { evidenceAdd } from './commands/evidenceAdd';
import { evidenceList } from './commands/evidenceList';
import { gateAsk } from './commands/gateAsk';
import { gateList } from './commands/gateList';
import { gateApprove, gateReject } from './commands/gateDecide';
import { quotaShow } from './commands/quotaShow';
import { quotaShouldRun } from './commands/quotaShouldRun';
import { quotaSpend } from './commands/quotaSpend';
import { handoff } from './commands/handoff';
import { handoffAccept } from './commands/handoffAccept';
import { status } from './commands/status';
import { history } from './commands/history';
import { logVerify } from './commands/logVerify';
import { logAccept } from './commands/logAccept';
import { logHandled } from './commands/logHandled';
import { doctor } from './commands/doctor';
import { backup } from './commands/backup';
import { restore } from './commands/restore';
import { turnStart } from './commands/turnStart';
import { turnFinish } from './commands/turnFinish';
import { turnProgress } from './commands/turnProgress';
import { turnList } from './commands/turnList';
import { turnShow } from './commands/turnShow';
import { goalSetHost } from './commands/goalHost';
import { goalSetReview } from './commands/goalReview';
import { REVIEW_CLI_COMMANDS } from './commands/review';
import { PROJECTS_COMMANDS } from './commands/projects';
import { dashboard } from './commands/dashboard';
import { reviewPacket } from './commands/reviewPacket';
import { agentsMd } from './commands/agentsMd';
import { mcp } from './commands/mcp';
import { lsp } from './commands/lsp';
import { evidenceRun } from './commands/evidenceRun';
import { goalSetCheck, todoSetCheck } from './commands/setCheck';
import { run } from './commands/run';
import { serveCalls } from './commands/serveCalls';
import { monitorAdd, monitorCancel, monitorList, monitorShow, monitorTick } from './commands/monitor';
import { goalAllowChecks, monitorApprove } from './commands/agentChecks';
import { HOOK_COMMANDS } from './commands/hooks';
import { WORKTREE_COMMANDS, goalSetWorktree } from './commands/worktree';
import { TEAM_COMMANDS } from './commands/team';
import { PRICES_COMMANDS } from './commands/prices';
import { updateApplyCommand, updatePlanCommand } from './commands/update';
import { PRESET_COMMANDS } from './commands/preset';
import { ready } from './commands/ready';

/** Every loopx command spec, in the order help lists them (the extension's COMMANDS are VS Code command ids). */
export const CLI_COMMANDS: readonly Command[] = [
  init,
  status,
  goalCreate,
  goalList,
  goalShow,
  goalPause,
  goalResume,
  goalDone,
  goalStop,
  goalSetCheck,
  goalSetWorktree,
  goalApply,
  goalExport,
  ...PRESET_COMMANDS,
  todoAdd,
  todoList,
  todoShow,
  todoNext,
  todoClaim,
  todoRenew,
  todoRelease,
  todoShip,
  todoBlock,
  todoUnblock,
  todoKill,
  todoSetCheck,
  evidenceAdd,
  evidenceRun,
  evidenceList,
  gateAsk,
  gateList,
  gateApprove,
  gateReject,
  quotaShow,
  quotaShouldRun,
  ready,
  quotaSpend,
  handoff,
  handoffAccept,
  monitorAdd,
  monitorList,
  monitorShow,
  monitorCancel,
  monitorApprove,
  monitorTick,
  goalAllowChecks,
  history,
  logVerify,
  logAccept,
  logHandled,
  doctor,
  backup,
  restore,
  turnStart,
  turnFinish,
  turnProgress,
  turnList,
  turnShow,
  goalSetHost,
  goalSetReview,
  ...REVIEW_CLI_COMMANDS,
  run,
  serveCalls,
  reviewPacket,
  ...HOOK_COMMANDS,
  ...PRICES_COMMANDS,
  ...WORKTREE_COMMANDS,
  ...TEAM_COMMANDS,
  ...PROJECTS_COMMANDS,
  dashboard,
  agentsMd,
  mcp,
  lsp,
  updatePlanCommand,
  updateApplyCommand,
];

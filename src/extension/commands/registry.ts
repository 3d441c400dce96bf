import * as vscode from 'vscode';
import type { IDisposable } from '../util/lifecycle';
import { type CommandDefinition, runSafely } from './context';
import { COMMANDS, type CommandId } from './commandIds';
import type { FolderNeed, Folders } from '../folders';
import { initialize } from './initialize';
import { newGoal } from './newGoal';
import { newGoalFromPreset } from './newGoalFromPreset';
import { checkReadiness } from './checkReadiness';
import { chooseGoalAgent, markGoalDone, pauseGoal, resumeGoal } from './goalLifecycle';
import { addTodo } from './addTodo';
import { blockTodo, claimTodo, killTodo, releaseTodo, shipTodo, unblockTodo } from './todoTransitions';
import { approveReview, requestChanges, setGoalReview, viewReviewChange } from './review';
import { approveGate, askGate, rejectGate } from './gates';
import { addEvidence, openArtifact, showEvidence } from './evidence';
import { refresh, showLastState, showLogs, showQuota, showStatus, verifyLog } from './inspect';
import { openBoard, showMoreTodos } from './openBoard';
import { backupStore, restoreBackup } from './backup';
import { reviewPacket, runTurn } from './turns';
import { connectAgent } from './connectAgent';
import { getStarted } from './getStarted';
import { cancelMonitor, checkMonitorsNow } from './monitors';
import { allowChecks, approveMonitor } from './agentChecks';
import { applyGoalFile, openTodo, planInFile } from './goalFiles';
import { showTurns } from './turnOutput';
import { clearTodoFilter, copyId, filterTodos, openOnBoard } from './treeStaples';
import { openStory } from './story';
import { addHook, removeHook } from './hooks';
import { setModelPrice } from './prices';
import { discardBranch, mergeBranch, openBranchPullRequest, showChanges } from './branches';

/** The table every command is registered from. */
export const COMMAND_TABLE: readonly CommandDefinition[] = [
  initialize,
  newGoal,
  newGoalFromPreset,
  checkReadiness,
  pauseGoal,
  resumeGoal,
  markGoalDone,
  chooseGoalAgent,
  addTodo,
  claimTodo,
  releaseTodo,
  shipTodo,
  blockTodo,
  unblockTodo,
  approveReview,
  viewReviewChange,
  requestChanges,
  setGoalReview,
  killTodo,
  showChanges,
  mergeBranch,
  openBranchPullRequest,
  discardBranch,
  askGate,
  approveGate,
  rejectGate,
  addEvidence,
  showEvidence,
  openArtifact,
  verifyLog,
  showStatus,
  showQuota,
  refresh,
  showLastState,
  showLogs,
  openBoard,
  runTurn,
  reviewPacket,
  showMoreTodos,
  backupStore,
  restoreBackup,
  connectAgent,
  getStarted,
  cancelMonitor,
  approveMonitor,
  allowChecks,
  checkMonitorsNow,
  applyGoalFile,
  planInFile,
  openTodo,
  showTurns,
  copyId,
  openOnBoard,
  filterTodos,
  clearTodoFilter,
  openStory,
  addHook,
  removeHook,
  setModelPrice,
];

/** Commands that need no store of a folder: Initialize wants a folder without one; the rest only show things. */
const NEEDS: Partial<Record<CommandId, FolderNeed | 'none'>> = {
  [COMMANDS.initialize]: 'noStore',
  [COMMANDS.showLogs]: 'none',
  [COMMANDS.getStarted]: 'none',
  [COMMANDS.refresh]: 'none',
  [COMMANDS.showLastState]: 'none',
  // One filter for the window's Goals view, whichever folder runs it.
  [COMMANDS.filterTodos]: 'none',
  [COMMANDS.clearTodoFilter]: 'none',
  [COMMANDS.copyId]: 'none',
};

/**
 * Each command runs with the `ctx` of the folder it is about (Folders.resolve: the view item's folder, the folder
 * its arguments name, the only one that fits, or the person's pick). Refresh (and Retry) and Show the Last State act on every folder.
 */
export function registerCommands(folders: Folders): IDisposable[] {
  return COMMAND_TABLE.map((def) =>
    vscode.commands.registerCommand(def.id, async (...args: unknown[]) => {
      const need = NEEDS[def.id] ?? 'store';
      if (need === 'none') {
        const everyFolder = def.id === COMMANDS.refresh || def.id === COMMANDS.showLastState;
        const targets = everyFolder ? folders.all : folders.all.slice(0, 1);
        let result: unknown;
        for (const folder of targets) result = await runSafely(folder.ctx, def, args);
        return result;
      }
      const target = await folders.resolve(args, need, titleOf(def.id));
      return target && runSafely(target.folder.ctx, def, target.args);
    }),
  );
}

/** "loopx.claimTodo" → "Claim Todo", as the palette names it (the folder pick's title). */
export function titleOf(id: CommandId): string {
  return id
    .replace(/^loopx\./, '')
    .replace(/([A-Z])/g, ' $1')
    .replace(/^./, (c) => c.toUpperCase());
}

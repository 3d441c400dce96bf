import * as vscode from 'vscode';
import type { IDisposable } from '../util/lifecycle';
import { type CommandDefinition, type ExtensionContextLike, runSafely } from './context';
import { initialize } from './initialize';
import { newGoal } from './newGoal';
import { pauseGoal, resumeGoal } from './goalLifecycle';
import { addTodo } from './addTodo';
import { blockTodo, claimTodo, killTodo, releaseTodo, shipTodo, unblockTodo } from './todoTransitions';
import { approveGate, askGate, rejectGate } from './gates';
import { addEvidence, openArtifact, showEvidence } from './evidence';
import { refresh, showLogs, showQuota, showStatus, verifyLog } from './inspect';
import { openBoard, showMoreTodos } from './openBoard';
import { backupStore, restoreBackup } from './backup';
import { reviewPacket, runTurn } from './turns';
import { cancelMonitor, checkMonitorsNow } from './monitors';

/** The table every command is registered from. */
export const COMMAND_TABLE: readonly CommandDefinition[] = [
  initialize, newGoal, pauseGoal, resumeGoal, addTodo,
  claimTodo, releaseTodo, shipTodo, blockTodo, unblockTodo, killTodo,
  askGate, approveGate, rejectGate,
  addEvidence, showEvidence, openArtifact,
  verifyLog, showStatus, showQuota, refresh, showLogs, openBoard, runTurn, reviewPacket, showMoreTodos, backupStore, restoreBackup,
  cancelMonitor, checkMonitorsNow,
];

export function registerCommands(ctx: ExtensionContextLike): IDisposable[] {
  return COMMAND_TABLE.map((def) => vscode.commands.registerCommand(def.id, (...args: unknown[]) => runSafely(ctx, def, args)));
}

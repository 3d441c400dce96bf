import * as vscode from 'vscode';
import type { Kernel } from '../../kernel/kernel';
import type { UnprovenDecision } from '../../kernel/decisions';
import { acceptBrokenLog } from '../../kernel/logDecisions';
import { decisionSentence } from '../../protocol/decisionWords';
import { COMMANDS } from '../commands/commandIds';

const ACCEPT = 'I Made These: Accept…';
const RESTORE = 'Restore Backup…';

/**
 * Decisions in a person's name that this computer's key does not prove: written outside LoopX (an agent that can
 * write .loopx/), made before this version, or made on another computer. LoopX runs no turn, check or hook on them
 * until the person accepts them or restores a backup; this says so once, in words.
 */
export async function showUnprovenDecisions(kernel: Kernel, unproven: readonly UnprovenDecision[]): Promise<void> {
  const [first] = unproven;
  if (!first) return;
  const more = unproven.length > 1 ? ` and ${unproven.length - 1} more` : '';
  const choice = await vscode.window.showErrorMessage(
    `LoopX: the log holds ${unproven.length === 1 ? 'a decision' : 'decisions'} in a person's name that this computer cannot confirm: ` +
      `${decisionSentence(first)}${more}. It was not made in LoopX on this computer, or it was changed since. ` +
      'LoopX runs no turn, check or hook on it. If you made it (before this version of LoopX, or on another computer), accept it; if you did not, an agent may have written it: restore a backup.',
    RESTORE,
    ACCEPT,
  );
  if (choice === RESTORE) await vscode.commands.executeCommand(COMMANDS.restoreBackup);
  if (choice !== ACCEPT) return;
  const sure = await vscode.window.showWarningMessage(
    `Accept ${unproven.length === 1 ? 'this decision' : `these ${unproven.length} decisions`} as yours?`,
    { modal: true, detail: unproven.map((d) => decisionSentence(d)).join('\n') },
    'Accept',
  );
  if (sure !== 'Accept') return;
  const accepted = acceptBrokenLog(kernel);
  void vscode.window.showInformationMessage(
    `LoopX: accepted ${accepted.decisions.length === 1 ? 'the decision' : `${accepted.decisions.length} decisions`} (recorded as event ${accepted.seq}).`,
  );
}

import * as vscode from 'vscode';
import type { Kernel } from '../../kernel/kernel';
import type { UnprovenDecision } from '../../kernel/decisions';
import { acceptBrokenLog } from '../../kernel/logHealth';
import { clockTime } from '../../protocol/display';
import { COMMANDS } from '../commands/commandIds';

/** What each kind of person's decision is, in words a person reads (the kinds themselves are codes). */
const DECISION_WORDS: Record<string, string> = {
  'gate.decided': 'a gate decided',
  'todo.unblocked': 'a todo unblocked',
  'goal.check_set': "a goal's acceptance check set",
  'todo.check_set': "a todo's acceptance check set",
  'goal.checks_allowed': 'checks allowed for agents to set',
  'monitor.approved': "an agent's monitor check allowed to run",
  'monitor.added': 'a monitor check added',
  'log.accepted': 'the event log accepted as it is',
  'hook.added': 'a hook added',
  'hook.removed': 'a hook removed',
  'goal.worktree_set': "a goal's worktree set",
  'worktree.landed': "a todo's branch landed",
  'goal.created': 'a goal created',
  'goal.status': "a goal's status changed",
};

const CHANNEL_WORDS: Record<string, string> = { vscode: 'in VS Code', tty: 'at a terminal' };

/** One decision as a person reads it: "an agent's monitor check allowed to run, by ada in VS Code at 10:42 (event 41)". */
export function decisionSentence(d: UnprovenDecision, nowMs = Date.now()): string {
  const what = DECISION_WORDS[d.kind] ?? `a change (${d.kind})`;
  const how = d.channel ? ` ${CHANNEL_WORDS[d.channel] ?? `through ${d.channel}`}` : '';
  return `${what}, by ${d.actor}${how} at ${clockTime(d.at, nowMs)} (event ${d.seq})`;
}

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

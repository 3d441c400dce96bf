import * as vscode from 'vscode';
import { COMMANDS, type CommandId } from '../commands/commandIds';
import type { Log } from '../util/log';
import { type DecideRequest, parseDecideLink } from '../../runtime/dashboard/decideLink';
import { projectRoot } from '../../kernel/projects/projectRegistry';
import { LANDING_LABELS, type Landing } from '../../protocol/changeWords';

/** A link handed to a window without its folder waits here for the window that opens it (at most PENDING_MS). */
const PENDING_KEY = 'loopx.pendingDecision';
const PENDING_MS = 120_000;

/** What each decision offers, as the commands whose modals a person already knows from the views. */
const CHOICES: Record<DecideRequest['kind'], { label: string; command: CommandId }[]> = {
  gate: [
    { label: 'Approve…', command: COMMANDS.approveGate },
    { label: 'Reject…', command: COMMANDS.rejectGate },
  ],
  land: (['mergeBranch', 'openPullRequest', 'discardBranch'] as const satisfies readonly Landing[]).map((landing) => ({
    label: LANDING_LABELS[landing],
    command: COMMANDS[landing],
  })),
  check: [{ label: 'Allow the check…', command: COMMANDS.approveMonitor }],
  blocked: [{ label: 'Unblock…', command: COMMANDS.unblockTodo }],
  paused: [{ label: 'Start the goal…', command: COMMANDS.resumeGoal }],
};

const WHAT: Record<DecideRequest['kind'], string> = {
  gate: 'gate',
  land: "todo's change",
  check: 'check',
  blocked: 'blocked todo',
  paused: 'goal',
};

/**
 * The dashboard's decide links (vscode://loopx.loopx/decide?root=…&kind=…&id=…): the decision's usual modal in the
 * window that has the project's folder, or the folder opened in a new window that then shows it. A link decides
 * nothing: it only brings the person to the place where they are asked.
 */
export function registerDecideLinks(globalState: vscode.Memento, ownRoots: () => readonly string[], log: Log): vscode.Disposable {
  return vscode.window.registerUriHandler({ handleUri: (uri) => handleDecideUri(uri, globalState, ownRoots(), log) });
}

/** What a decide link does in this window (the URI handler's body). */
export async function handleDecideUri(uri: vscode.Uri, globalState: vscode.Memento, ownRoots: readonly string[], log: Log): Promise<void> {
  const request = parseDecideLink(uri.path, uri.query);
  if (!request) {
    log.warn(`a link LoopX does not know was opened: ${uri.path}`);
    void vscode.window.showWarningMessage('LoopX: that link is not one LoopX opens.');
    return;
  }
  const root = projectRoot(request.root);
  if (ownRoots.map((r) => projectRoot(r)).includes(root)) return showDecision(request);
  await globalState.update(PENDING_KEY, { ...request, root, at: Date.now() });
  await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(root), { forceNewWindow: true });
}

/** A new window opened for a link: the decision it was opened for, once, when it is this window's folder and fresh. */
export async function takePendingDecision(globalState: vscode.Memento, ownRoots: readonly string[]): Promise<void> {
  const pending = globalState.get<DecideRequest & { at: number }>(PENDING_KEY);
  if (!pending || !ownRoots.map((r) => projectRoot(r)).includes(pending.root)) return;
  await globalState.update(PENDING_KEY, undefined);
  if (Date.now() - pending.at > PENDING_MS) return;
  await showDecision(pending);
}

async function showDecision(request: DecideRequest): Promise<void> {
  const choices = CHOICES[request.kind];
  const picked =
    choices.length === 1
      ? choices[0]
      : await vscode.window.showQuickPick(choices, { title: `LoopX: the ${WHAT[request.kind]} ${request.id}, from the dashboard` });
  if (picked) await vscode.commands.executeCommand(picked.command, request.id);
}

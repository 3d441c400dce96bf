import * as vscode from 'vscode';
import { allowChecks as allowChecksOp, approveMonitor as approveOp } from '../../kernel/monitors/monitors';
import { type Monitor, getMonitor } from '../../kernel/monitors/monitorQueries';
import { parseId } from '../../kernel/validate';
import { clean, oneLine, untilWords } from '../../protocol/display';
import { formatDuration } from '../../kernel/time';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { resolveGoal } from './pickers';
import { parseArg } from './args';
import { getGoal } from '../../kernel/goals/goalQueries';
import { planCheckSandbox, sandboxForPeople } from '../../kernel/run/checkSandbox';

/**
 * Allow Monitor Check…: a check an agent set runs unattended, outside its sandbox, only once a person let it. The
 * modal shows the command itself, word for word, before anything runs (recorded with channel vscode), and where this
 * window would run it: in loopx's sandbox, or, where there is none, with the person's full access, and why.
 */
export const approveMonitor: CommandDefinition = {
  id: COMMANDS.approveMonitor,
  async run(ctx, arg) {
    const given = parseArg(arg);
    let monitor: Monitor | undefined =
      given.kind === 'monitor'
        ? given.monitor
        : given.kind === 'id'
          ? kernelOf(ctx).read((db) => getMonitor(db, parseId('monitor', given.id)))
          : undefined;
    if (!monitor) {
      const pending = ctx.model.monitors().filter((m) => m.status === 'waiting' && m.approval === 'pending');
      const pick = await vscode.window.showQuickPick(
        pending.map((m) => ({ label: `${m.id} ${oneLine(m.check, 70)}`, description: `${m.todoId} · set by ${m.addedBy}`, monitor: m })),
        { title: 'LoopX: Allow Monitor Check', placeHolder: pending.length ? 'A check an agent set' : 'No check waits for you' },
      );
      monitor = pick?.monitor;
    }
    if (!monitor) return undefined;
    const kernel = kernelOf(ctx);
    const { sandbox } = planCheckSandbox({ purpose: 'monitor', env: process.env, actorKind: 'human', writable: [kernel.root] });
    const choice = await vscode.window.showWarningMessage(
      `Let ${monitor.addedBy}'s check for ${monitor.todoId} run?`,
      {
        modal: true,
        detail: `${monitor.check ?? ''}\n\nLoopX will run this command from the workspace root every ${formatDuration(monitor.everySeconds ?? 0)} (as the monitor says), unattended and outside the agent's sandbox, until ${monitor.until === 'exit0' ? 'it passes' : untilWords(clean(monitor.until))}. ${sandboxForPeople(sandbox)}`,
      },
      'Allow',
    );
    if (choice !== 'Allow') return undefined;
    const approved = approveOp(kernel, monitor.id);
    ctx.log.info(`allowed the check of monitor ${monitor.id}: ${monitor.check}`);
    return approved;
  },
};

/**
 * Allow Agents' Checks for Goal…: the patterns of checks agents may set for a goal's monitors without asking, one
 * pattern at a time (add one, or pick one to remove). `*` never stretches over ; & | < > $ ` \ ( ) { } or a newline.
 */
export const allowChecks: CommandDefinition = {
  id: COMMANDS.allowChecks,
  async run(ctx, arg) {
    const given = parseArg(arg);
    const goalId =
      given.kind === 'goal'
        ? given.goal.id
        : given.kind === 'turn' && given.goalId
          ? given.goalId
          : (await resolveGoal(ctx, undefined, (g) => g.status === 'active' || g.status === 'paused'))?.id;
    if (!goalId) return undefined;
    const current = kernelOf(ctx).read((db) => getGoal(db, goalId)).allowedChecks;
    const patterns =
      typeof (arg as { pattern?: unknown })?.pattern === 'string'
        ? [...current, (arg as { pattern: string }).pattern]
        : await choose(goalId, current);
    if (!patterns) return undefined;
    const goal = allowChecksOp(kernelOf(ctx), goalId, patterns);
    void vscode.window.showInformationMessage(
      goal.allowedChecks.length
        ? `LoopX: checks agents set for ${goalId} that match ${goal.allowedChecks.join(' · ')} run without asking you.`
        : `LoopX: every check an agent sets for ${goalId} waits for you.`,
    );
    return goal;
  },
};

async function choose(goalId: string, current: string[]): Promise<string[] | undefined> {
  const add = { label: '$(add) Allow a pattern…', remove: undefined as string | undefined };
  const pick = await vscode.window.showQuickPick(
    [add, ...current.map((p) => ({ label: `$(trash) ${p}`, description: 'stop allowing', remove: p }))],
    { title: `LoopX: checks agents may set for ${goalId} without asking` },
  );
  if (!pick) return undefined;
  if (pick.remove !== undefined) return current.filter((p) => p !== pick.remove);
  const pattern = await vscode.window.showInputBox({
    title: `LoopX: allow a check pattern for ${goalId}`,
    prompt: 'The whole command must match; * stands for words, never for ; & | < > $ ` ( ) { } or a new line',
    placeHolder: 'gh run view *',
    validateInput: (v) => (/^[*\s]*$/.test(v) ? 'Name the program, e.g. gh run view *' : undefined),
  });
  return pattern === undefined ? undefined : [...current, pattern];
}

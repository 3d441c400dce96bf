import * as vscode from 'vscode';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { resolveGoal } from './pickers';
import { type Readiness, goalReadiness } from '../../runtime/goalReadiness';
import { clean } from '../../protocol/display';

const MARK = { ok: '✓', warn: '⚠', fail: '✗' } as const;

/**
 * Check Readiness (a goal's row, the palette): whether the goal is ready to be left running, in a modal listing each
 * reason as a sentence (runtime/goalReadiness.ts, the same as `loopx ready`). It asks the host's program its version
 * and help, so only in a trusted workspace. The fixes are the CLI's; here each reason says what is wrong in words.
 */
export const checkReadiness: CommandDefinition = {
  id: COMMANDS.checkReadiness,
  async run(ctx, arg) {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showInformationMessage(
        'LoopX: checking readiness runs the agent CLI on your PATH, so it needs a trusted workspace.',
      );
      return undefined;
    }
    const goal = await resolveGoal(ctx, arg, () => true);
    if (!goal) return undefined;
    const readiness = await goalReadiness(kernelOf(ctx), goal.id, { env: process.env });
    void vscode.window.showInformationMessage(readinessTitle(readiness), { modal: true, detail: readinessDetail(readiness) });
    return readiness;
  },
};

export function readinessTitle(r: Readiness): string {
  return `${r.goalId} ${clean(r.title)} is ${r.ready ? '' : 'not '}ready to be left running (${r.score} of 100).`;
}

export function readinessDetail(r: Readiness): string {
  const order = { fail: 0, warn: 1, ok: 2 } as const;
  return [...r.reasons]
    .sort((a, b) => order[a.level] - order[b.level])
    .map((reason) => `${MARK[reason.level]} ${reason.sentence[0]?.toUpperCase()}${reason.sentence.slice(1)}.`.replace(/\.\.$/, '.'))
    .join('\n');
}

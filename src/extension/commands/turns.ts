import * as vscode from 'vscode';
import { renderReviewPacket } from '../../kernel/projections/reviewPacket';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { resolveGoal, resolveTodo } from './pickers';
import { HOSTS, type RunOutcome, describeNoRun } from '../turns/turnRunner';
import { parseArg } from './args';
import { reviewUri } from '../views/virtualDocuments';

const HOST_NAMES: Record<string, string> = { codex: 'Codex CLI', claude: 'Claude Code', custom: 'Custom command' };

/**
 * Run Turn from the palette, a goal or todo in the Goals view, or a board card. Arguments from tests and the board:
 * `{ goalId, todoId?, host? }`.
 */
export const runTurn: CommandDefinition = {
  id: COMMANDS.runTurn,
  async run(ctx, arg) {
    const runner = ctx.turns;
    const parsed = parseArg(arg);
    const given: { goalId?: string; todoId?: string; host?: string } =
      parsed.kind === 'turn'
        ? parsed
        : parsed.kind === 'todo'
          ? { todoId: parsed.todo.id, goalId: parsed.todo.goalId }
          : parsed.kind === 'goal'
            ? { goalId: parsed.goal.id }
            : {};
    const todoId = given.todoId;
    let goalId = given.goalId;
    if (!goalId && !todoId) goalId = (await resolveGoal(ctx, undefined, (g) => g.status === 'active'))?.id;
    if (todoId && !goalId) goalId = (await resolveTodo(ctx, todoId, ['open', 'claimed'], 'Run Turn on'))?.goalId;
    if (!goalId) return undefined;
    const defaultHost = vscode.workspace.getConfiguration('loopx').get<string>('defaultHost') || 'codex';
    const settings = runner.hostSettings();
    // Every host reads the same way: its name, then the command it runs; the default is marked, not described.
    const host =
      given.host ??
      (
        await vscode.window.showQuickPick(
          [...HOSTS]
            .sort((a, b) => Number(b === defaultHost) - Number(a === defaultHost))
            .map((h) => ({
              label: HOST_NAMES[h] ?? h,
              description: `${settings[h] || 'no command set (setting loopx.hosts.custom.command)'}${h === defaultHost ? ' · default' : ''}`,
              host: h,
            })),
          { title: `LoopX: Run Turn on ${todoId ?? goalId} with` },
        )
      )?.host;
    if (!host) return undefined;
    const outcome: RunOutcome = await runner.run(goalId, host, todoId);
    if (!outcome.started) void vscode.window.showInformationMessage(describeNoRun(outcome));
    return outcome;
  },
};

export const reviewPacket: CommandDefinition = {
  id: COMMANDS.reviewPacket,
  async run(ctx, arg) {
    kernelOf(ctx);
    const given = parseArg(arg);
    const goal = given.kind === 'id' ? given.id : undefined;
    const uri = reviewUri(ctx.session.root, goal);
    await vscode.commands.executeCommand('markdown.showPreview', uri);
    return renderReviewPacketFor(ctx, goal);
  },
};

export function renderReviewPacketFor(ctx: Parameters<CommandDefinition['run']>[0], goalId?: string): string {
  return kernelOf(ctx).read((db, now) => renderReviewPacket(db, now, goalId));
}

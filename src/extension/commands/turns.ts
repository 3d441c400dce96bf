import * as vscode from 'vscode';
import { renderReviewPacket } from '../../kernel/readModels/reviewPacket';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { resolveGoal, resolveTodo } from './pickers';
import { getTodo } from '../../kernel/todos/todoQueries';
import { type NoRun, type RunOutcome, describeNoRun } from '../turns/turnRunner';
import { parseArg } from './args';
import { inFolder } from './inFolder';
import { reviewUri } from '../views/virtualDocuments';
import type { HostSettings } from '../../runtime/hosts';
import { anyAgentCli, hostChoices } from './hostChoices';
import { getGoal } from '../../kernel/goals/goalQueries';
import { SAMPLE_HOST } from '../../kernel/turns/turnLaunchers';
import type { PersonHost } from '../../runtime/personHosts';
import { loopxSetting } from '../loopxSettings';

/** Run Turn's own choices besides the hosts: the built-in sample agent, and a command typed right there. */
const TYPED = 'typed';

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
            : parsed.kind === 'id' // a button's or keybinding's "G3" or "T12"
              ? { [/^t/i.test(parsed.id) ? 'todoId' : 'goalId']: parsed.id.toUpperCase() }
              : {};
    const todoId = given.todoId;
    let goalId = given.goalId;
    if (!goalId && !todoId) goalId = (await resolveGoal(ctx, undefined, (g) => g.status === 'active'))?.id;
    if (todoId && !goalId) goalId = (await resolveTodo(ctx, todoId, ['open', 'claimed', 'in_review'], 'Run Turn on'))?.goalId;
    if (!goalId) return undefined;
    // A goal that cannot run says so before asking which agent (a todo, or a host already chosen, is judged when the
    // turn starts, after the host's own check).
    const waits = todoId || given.host ? undefined : runner.precheck(goalId);
    if (waits) return tellNoRun(waits, goalId, ctx.session.root);
    // A todo in review gets a review turn (kernel/turns/reviewTurn.ts): the goal's reviewer host is offered first.
    const { prefer, why } = kernelOf(ctx).read((db) => {
      const goal = getGoal(db, goalId);
      const inReview = todoId !== undefined && getTodo(db, todoId).status === 'in_review';
      return inReview
        ? { prefer: goal.review?.reviewerHost ?? null, why: "this goal's reviewer" }
        : { prefer: goal.host, why: "this goal's agent" };
    });
    const host = given.host ?? (await pickHost(runner.hostSettings(), runner.ownHosts(), todoId ?? goalId, prefer, why));
    if (!host) return undefined;
    let command: string | undefined;
    if (host === TYPED) {
      command = await vscode.window.showInputBox({
        title: `LoopX: Run Turn on ${todoId ?? goalId} with a command`,
        prompt: 'The command that runs your agent. {prompt} is the prompt file (else it is on stdin); {todo}, {goal}, {agent} too.',
        placeHolder: 'node ./my-agent.js {prompt}',
        value: runner.hostSettings().custom,
        validateInput: (v) => (v.trim() ? undefined : 'Type the command that runs your agent'),
      });
      if (!command) return undefined;
    }
    const outcome: RunOutcome = await runner.run(goalId, host === TYPED ? 'custom' : host, todoId, command);
    if (!outcome.started && !outcome.told) tellNoRun(outcome, goalId, ctx.session.root);
    return outcome;
  },
};

/** The way forward from each wait, as buttons: who holds the slots is on the board; a paused goal resumes; and so on. */
const WAYS_FORWARD: Partial<Record<NonNullable<NoRun['code']>, { title: string; command: string; withGoal: boolean }[]>> = {
  goal_inactive: [{ title: 'Resume Goal', command: COMMANDS.resumeGoal, withGoal: true }],
  no_ready_work: [
    { title: 'Add a Todo', command: COMMANDS.addTodo, withGoal: true },
    { title: 'Open Board', command: COMMANDS.openBoard, withGoal: false },
  ],
  budget_exhausted: [{ title: 'Show Quota', command: COMMANDS.showQuota, withGoal: false }],
};
const OPEN_BOARD = [{ title: 'Open Board', command: COMMANDS.openBoard, withGoal: false }];

/** Why no turn started, with the way forward as a button (a toast with a button stays until the person acts on it). */
function tellNoRun(outcome: NoRun, goalId: string, root: string): NoRun {
  const ways = (outcome.code && WAYS_FORWARD[outcome.code]) || OPEN_BOARD;
  void vscode.window.showWarningMessage(describeNoRun(outcome), ...ways.map((w) => w.title)).then((picked) => {
    const way = ways.find((w) => w.title === picked);
    // The button acts in this folder (an id alone is ambiguous in a multi-root workspace).
    if (way) void vscode.commands.executeCommand(way.command, inFolder(root, ...(way.withGoal ? [goalId] : [])));
  });
  return outcome;
}

/**
 * Which host runs the turn. Each reads the same way: its name, then the command it runs (or that it is not
 * installed); the goal's own agent (a person's choice) comes first, then the default. Without an agent CLI the sample
 * agent comes first, so a person can still watch a turn, and a command can always be typed right there.
 */
async function pickHost(
  settings: HostSettings,
  own: PersonHost[],
  target: string,
  goalHost: string | null,
  why: string,
): Promise<string | undefined> {
  const defaultHost = loopxSetting<string>('loopx.defaultHost') || 'codex';
  const choices = hostChoices(settings, own);
  const noAgentCli = !anyAgentCli(choices);
  const rank = (id: string) => (id === goalHost ? 2 : id === defaultHost ? 1 : 0);
  const hosts = choices
    .sort((a, b) => rank(b.id) - rank(a.id))
    .map((h) => ({
      label: h.name,
      description:
        h.id !== 'custom' && !h.installed
          ? 'not installed'
          : `${h.command || 'no command set (setting loopx.hosts.custom.command)'}${h.id === goalHost ? ` · ${why}` : h.id === defaultHost ? ' · default' : ''}`,
      host: h.id,
    }));
  const sample = {
    label: 'Sample agent (a demo, no AI)',
    description: 'works the todo through the loopx CLI as an agent would; changes no files, ships nothing, spends no budget',
    detail: noAgentCli
      ? 'No agent CLI (Codex, Claude Code, OpenCode, …) is installed here: watch a turn with the sample agent, or type your own command.'
      : undefined,
    host: SAMPLE_HOST,
  };
  const typed = { label: 'Type a command…', description: 'any agent CLI or script, for this turn', host: TYPED };
  const items = noAgentCli && !goalHost ? [sample, typed, ...hosts] : [...hosts, sample, typed];
  return (await vscode.window.showQuickPick(items, { title: `LoopX: Run Turn on ${target}`, placeHolder: 'Which agent runs the turn?' }))
    ?.host;
}

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

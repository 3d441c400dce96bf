import * as vscode from 'vscode';
import { setGoalStatus } from '../../kernel/goals/goals';
import { clean } from '../../protocol/display';
import { pausedWords } from '../../shared/pausedWords';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { resolveGoal } from './pickers';
import { pickGoalAgent } from './hostChoices';
import { setGoalHost } from '../../kernel/goals/goalHost';

export const pauseGoal: CommandDefinition = {
  id: COMMANDS.pauseGoal,
  async run(ctx, arg) {
    const goal = await resolveGoal(ctx, arg, (g) => g.status === 'active');
    return goal && setGoalStatus(kernelOf(ctx), goal.id, 'paused');
  },
};

/**
 * Resume. Undoing one's own pause is one click; starting a goal an agent or a script proposed (or one that was done
 * or stopped) lets agents spend its budget, so it is a decision in a modal that says what it allows.
 */
export const resumeGoal: CommandDefinition = {
  id: COMMANDS.resumeGoal,
  async run(ctx, arg) {
    const goal = await resolveGoal(ctx, arg, (g) => g.status !== 'active');
    if (!goal) return undefined;
    const waits = ctx.model.status()?.goals.find((g) => g.id === goal.id)?.waitsForPerson;
    if (waits || goal.status === 'done' || goal.status === 'stopped') {
      const p = goal.policy;
      const why = waits ? pausedWords(waits) : `it is ${goal.status}`;
      const started = await vscode.window.showWarningMessage(
        `Start goal ${goal.id} ${clean(goal.title)}?`,
        {
          modal: true,
          detail:
            `${why.charAt(0).toUpperCase()}${why.slice(1)}. ` +
            `Once started, agents may spend up to ${p.turnsPerWindow} turn${p.turnsPerWindow === 1 ? '' : 's'} every ${p.windowHours} h on it, ` +
            `${p.maxConcurrent === 1 ? 'one at a time' : `at most ${p.maxConcurrent} at a time`}.`,
        },
        'Start',
      );
      if (started !== 'Start') return undefined;
    }
    return setGoalStatus(kernelOf(ctx), goal.id, 'active');
  },
};

/** Done is final for agents (a person may reopen it): a modal that says what is left and that agents stop spending. */
export const markGoalDone: CommandDefinition = {
  id: COMMANDS.markGoalDone,
  async run(ctx, arg) {
    const goal = await resolveGoal(ctx, arg, (g) => g.status === 'active' || g.status === 'paused');
    if (!goal) return undefined;
    const counts = ctx.model.status()?.goals.find((g) => g.id === goal.id)?.counts;
    const left = counts ? counts.open + counts.claimed + counts.in_review + counts.blocked : 0;
    const done = await vscode.window.showWarningMessage(
      `Mark goal ${goal.id} ${clean(goal.title)} done?`,
      {
        modal: true,
        detail:
          (left === 0
            ? `Every todo has shipped (${counts?.shipped ?? 0}). `
            : `${left} todo${left === 1 ? ' is' : 's are'} not shipped; they stay as they are. `) +
          'Agents stop taking turns on it; you can resume it later.',
      },
      'Mark Done',
    );
    return done === 'Mark Done' ? setGoalStatus(kernelOf(ctx), goal.id, 'done') : undefined;
  },
};

/**
 * Choose Agent… (a goal's row, the palette): the agent CLI its turns run on, or Choose at each turn. A person's
 * decision, recorded as one (this window is the person's channel); the same pick as New Goal's last step.
 */
export const chooseGoalAgent: CommandDefinition = {
  id: COMMANDS.chooseGoalAgent,
  async run(ctx, arg) {
    const goal = await resolveGoal(ctx, arg, (g) => g.status !== 'done' && g.status !== 'stopped');
    if (!goal) return undefined;
    const host = await pickGoalAgent(ctx.turns, `LoopX: the agent of ${goal.id} ${clean(goal.title)}`, goal.host);
    if (host === undefined) return undefined;
    return setGoalHost(kernelOf(ctx), goal.id, host);
  },
};

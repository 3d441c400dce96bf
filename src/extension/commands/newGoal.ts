import * as vscode from 'vscode';
import { writeGoalFile } from './goalFiles';
import { defaultGoalFilePath } from '../../goalFile/format';
import { clean } from '../../protocol/display';
import { createGoal } from '../../kernel/goals/goals';
import { InvalidInputError } from '../../kernel/errors';
import { parseScope } from '../../kernel/workspacePaths';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { type CapAnswer, parseDollarCap, parseTokenCap } from './newGoalCaps';
import { currentBranch, worktreeBaseProblem } from './newGoalWorktree';
import { pickGoalAgent } from './hostChoices';
import { setGoalHost } from '../../kernel/goals/goalHost';
import { setGoalReview } from '../../kernel/goals/goalReview';
import { pickReview } from './review';

/**
 * A guided input (title, objective, scope, turns per day, then optional caps on tokens and money per day, an optional
 * worktree base, and the agent its turns run on) so a first goal takes under a minute: Enter on an empty cap means
 * none, and on the agent step, that the agent is chosen at each turn.
 */
export const newGoal: CommandDefinition = {
  id: COMMANDS.newGoal,
  async run(ctx) {
    const kernel = kernelOf(ctx);
    const steps = 9;
    const title = await step(1, steps, 'Title', 'What is this goal? One line.', {
      required: true,
      placeHolder: 'e.g. what users get when it is done',
    });
    if (title === undefined) return undefined;
    const objective = await step(2, steps, 'Objective', 'What does done look like? Agents read this every turn.', {
      placeHolder: 'e.g. the checks that pass and the docs that exist when it is done',
    });
    if (objective === undefined) return undefined;
    const scopeText = await step(3, steps, 'Scope', 'Paths or globs the work may touch, comma-separated (empty: the whole workspace).', {
      placeHolder: 'e.g. src/feature/**, docs/feature.md',
      validate: (text) => validateScope(text),
    });
    if (scopeText === undefined) return undefined;
    const turnsText = await step(4, steps, 'Turns per day', 'How many agent turns this goal may spend in 24 hours.', {
      value: '20',
      validate: (text) => (/^\d{1,5}$/.test(text.trim()) ? undefined : 'A whole number, e.g. 20'),
    });
    if (turnsText === undefined) return undefined;
    const tokens = await capStep(5, steps, 'Token cap per day (optional)', parseTokenCap, {
      prompt: "Most tokens (in and out) this goal's turns may use in 24 hours; a turn that would likely pass it waits. Empty: no cap.",
      placeHolder: 'e.g. 2M or 500k; empty for no cap',
    });
    if (tokens === undefined) return undefined;
    const money = await capStep(6, steps, 'Money cap per day (optional)', parseDollarCap, {
      prompt: "Most this goal's turns may cost in 24 hours, in US dollars; a turn that would likely pass it waits. Empty: no cap.",
      placeHolder: 'e.g. 10 or 2.50; empty for no cap',
    });
    if (money === undefined) return undefined;
    // Empty to start, as its text says: Enter through the wizard leaves worktrees off; the branch is a suggestion.
    const branch = currentBranch(kernel.root);
    const base = await step(7, steps, 'Worktrees (optional)', WORKTREE_PROMPT, {
      placeHolder: branch
        ? `e.g. ${branch} (this folder's branch); empty: turns work in this folder`
        : 'e.g. main; empty: turns work in this folder',
      validate: (text) => worktreeBaseProblem(kernel.root, text),
    });
    if (base === undefined) return undefined;
    const host = await pickGoalAgent(ctx.turns, `LoopX: New Goal (8/${steps}) Agent (optional)`, null);
    if (host === undefined) return undefined;
    // Who reviews what its agents ship (No review first, Enter); the rounds take their default (Set Review… changes them).
    const review = await pickReview(ctx.turns, `LoopX: New Goal (9/${steps}) Review (optional)`, null, false);
    if (review === undefined) return undefined;
    const created = createGoal(kernel, {
      title,
      objective,
      scope: splitScope(scopeText),
      turnsPerWindow: Number(turnsText),
      windowHours: 24,
      tokensPerWindow: tokens,
      dollarsPerWindow: money,
      ...(base ? { worktree: base } : {}),
    });
    // The agent is a person's choice, recorded as one (this window is the person's channel).
    const hosted = host ? setGoalHost(kernel, created.id, host) : created;
    const goal = review ? setGoalReview(kernel, created.id, review) : hosted;
    ctx.log.info(`created goal ${goal.id}${host ? ` (its turns run on ${host})` : ''}`);
    // How to plan its todos is the next step of the same flow, not a toast that hides itself: a goal file (in the
    // repository, reviewed like code), todos one by one here, or later (Escape).
    const next = await vscode.window.showQuickPick(
      [
        {
          label: '$(file-code) Plan in a File',
          detail: `${defaultGoalFilePath(goal.title)}: the goal and its todos in the repository, reviewed like code, applied on purpose`,
          value: 'file' as const,
        },
        { label: '$(add) Add a Todo', detail: 'one todo now, with its acceptance and priority', value: 'todo' as const },
        { label: '$(close) Later', detail: 'Add Todo and Plan in a File are on the goal in the Goals view', value: 'later' as const },
      ],
      { title: `LoopX: created ${goal.id} ${clean(goal.title)}. Plan its todos:`, placeHolder: 'How do you want to plan the work?' },
    );
    if (next?.value === 'todo') void vscode.commands.executeCommand(COMMANDS.addTodo, goal.id);
    if (next?.value === 'file') await writeGoalFile(ctx, goal.id);
    return goal;
  },
};

const WORKTREE_PROMPT =
  'Give each todo its own git worktree and branch, made from this branch, so agents running at once never touch each ' +
  "other's files; you merge each branch when it is done. Empty: every turn works in this folder.";

function splitScope(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function validateScope(text: string): string | undefined {
  try {
    splitScope(text).forEach(parseScope);
    return undefined;
  } catch (error) {
    return error instanceof InvalidInputError ? error.message : String(error);
  }
}

/** An optional cap: checked as typed (the box says what is wrong, in words); its value, null for none, undefined on Escape. */
async function capStep(
  n: number,
  total: number,
  name: string,
  parse: (text: string) => CapAnswer,
  o: { prompt: string; placeHolder: string },
): Promise<number | null | undefined> {
  const text = await step(n, total, name, o.prompt, { placeHolder: o.placeHolder, validate: (t) => errorOf(parse(t)) });
  if (text === undefined) return undefined;
  const answer = parse(text);
  return 'value' in answer ? answer.value : undefined;
}

function errorOf(answer: CapAnswer): string | undefined {
  return 'error' in answer ? answer.error : undefined;
}

function step(
  n: number,
  total: number,
  name: string,
  prompt: string,
  o: { required?: boolean; placeHolder?: string; value?: string; validate?: (t: string) => string | undefined },
) {
  return vscode.window
    .showInputBox({
      title: `LoopX: New Goal (${n}/${total}) ${name}`,
      prompt,
      placeHolder: o.placeHolder,
      value: o.value,
      ignoreFocusOut: true,
      validateInput: (t) => (o.required && !t.trim() ? `${name} is required` : o.validate?.(t)),
    })
    .then((v) => (v === undefined ? undefined : v.trim()));
}

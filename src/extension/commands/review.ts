import * as vscode from 'vscode';
import { giveVerdict } from '../../kernel/approvals';
import { reviewPolicy, setGoalReview as setReviewOp } from '../../kernel/goals/goalReview';
import type { ReviewPolicy } from '../../kernel/model';
import { reviewerWords } from '../../shared/reviewWords';
import { hostChoices } from './hostChoices';
import type { HostSettings } from '../../runtime/hosts';
import type { PersonHost } from '../../runtime/personHosts';
import { reviewRound } from '../../kernel/todos/reviewQueries';
import { getGoal } from '../../kernel/goals/goalQueries';
import { clean } from '../../protocol/display';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { ask, resolveGoal, resolveTodo } from './pickers';
import { reviewChangeUri } from '../views/virtualDocuments';

/**
 * A person's verdict on a change in review, instead of (or after) its reviewer: approving it (the todo is done, its
 * change waits for landing as any other) or sending it back with what should change. The kernel records it as a
 * person's, with the VS Code channel, and decides any gate the review raised when its rounds ran out.
 */
export const approveReview: CommandDefinition = {
  id: COMMANDS.approveReview,
  async run(ctx, arg) {
    const todo = await resolveTodo(ctx, arg, ['in_review'], 'Approve the Change');
    if (!todo) return undefined;
    const { round, lands } = kernelOf(ctx).read((db) => ({
      round: reviewRound(db, todo.id, todo.reviewRound),
      lands: getGoal(db, todo.goalId).review?.autoLand === true,
    }));
    const landing = lands ? ' Its goal lets an approved change land on its own: it merges once its acceptance check passes again.' : '';
    const said =
      round?.verdict === 'request_changes' || round?.verdict === 'could_not_review'
        ? ` Its reviewer said: ${clean(round.summary ?? '')}`
        : '';
    const choice = await vscode.window.showWarningMessage(
      `Approve the change of ${todo.id} ${clean(todo.title)}?`,
      {
        modal: true,
        detail: `${clean(todo.implementer ?? 'Its agent')} made it (review round ${todo.reviewRound}). Approving marks it done as your decision, without waiting for its reviewer.${landing}${said}`,
      },
      'Approve',
    );
    if (choice !== 'Approve') return undefined;
    const note = await ask({ title: `LoopX: Approve ${todo.id}`, prompt: 'Why it is good to go (optional)' });
    if (note === undefined) return undefined;
    const approve = () => giveVerdict(kernelOf(ctx), todo.id, { verdict: 'approve', summary: note || 'approved by a person' });
    // Landing on its own runs the acceptance check once more and merges: say so while it works.
    const result = lands
      ? await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: `LoopX: approving ${todo.id} and landing it (its check runs first)…` },
          approve,
        )
      : await approve();
    if (result.landing?.landed) void vscode.window.showInformationMessage(`${todo.id} landed on its own, as its goal's review allows.`);
    else if (result.landing?.why) void vscode.window.showInformationMessage(`${todo.id} waits for you to land it: ${result.landing.why}.`);
    return result.todo;
  },
};

/**
 * View the Change (a card in review, a todo's row): the change as its reviewer reads it — what was submitted and
 * claimed checked, the acceptance check's last run, the evidence, earlier rounds and the diff — in a read-only document.
 */
export const viewReviewChange: CommandDefinition = {
  id: COMMANDS.viewReviewChange,
  async run(ctx, arg) {
    const todo = await resolveTodo(ctx, arg, ['in_review'], 'View the Change Under Review');
    if (!todo) return undefined;
    const doc = await vscode.workspace.openTextDocument(reviewChangeUri(ctx.session.root, todo.id));
    await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    return vscode.window.showTextDocument(doc, { preview: true });
  },
};

export const requestChanges: CommandDefinition = {
  id: COMMANDS.requestChanges,
  async run(ctx, arg) {
    const todo = await resolveTodo(ctx, arg, ['in_review'], 'Send the Change Back');
    if (!todo) return undefined;
    const summary = await ask({
      title: `LoopX: Send ${todo.id} back`,
      prompt: 'What should change? Its implementer reads this in its next turn',
      required: true,
    });
    if (summary === undefined) return undefined;
    return (await giveVerdict(kernelOf(ctx), todo.id, { verdict: 'request_changes', summary })).todo;
  },
};

/**
 * Set Review… (a goal's row, the palette): who reviews each change the goal's agents ship, and how many rounds of
 * changes before you decide; or no review. A person's decision, recorded with the VS Code channel.
 */
export const setGoalReview: CommandDefinition = {
  id: COMMANDS.setGoalReview,
  async run(ctx, arg) {
    const goal = await resolveGoal(ctx, arg, (g) => g.status !== 'done' && g.status !== 'stopped');
    if (!goal) return undefined;
    const policy = await pickReview(ctx.turns, `LoopX: Review of ${goal.id} ${clean(goal.title)}`, goal.review, true);
    if (policy === undefined) return undefined;
    const updated = setReviewOp(kernelOf(ctx), goal.id, policy);
    if (policy)
      void vscode.window.showInformationMessage(
        `${goal.id}: ${reviewerWords(policy)} reviews each change, ${policy.maxRounds} round(s) before you decide.${policy.autoLand ? ' Approved changes whose check passed land on their own.' : ''}`,
      );
    return updated;
  },
};

/**
 * Who reviews each change (No review first), then how many rounds before the person decides and whether an approved
 * change lands on its own: Set Review… and New Goal's last step. Undefined when the person closed a pick; null for no
 * review. `askRounds` false takes the defaults (no landing on its own: New Goal keeps its steps few).
 */
export async function pickReview(
  hosts: { hostSettings(): HostSettings; ownHosts(): PersonHost[] },
  title: string,
  now: ReviewPolicy | null,
  askRounds: boolean,
): Promise<ReviewPolicy | null | undefined> {
  const mark = (on: boolean) => (on ? ' · now' : '');
  const installed = hostChoices(hosts.hostSettings(), hosts.ownHosts()).filter((h) => h.installed || h.id === now?.reviewerHost);
  const same = (p: Partial<ReviewPolicy>) =>
    now !== null && now.reviewerAgent === null && now.reviewerHost === (p.reviewerHost ?? null) && now.otherHost === (p.otherHost ?? false);
  const items: { label: string; description: string; policy: Partial<ReviewPolicy> | null }[] = [
    { label: 'No review', description: `an agent's ship is done at once${mark(now === null)}`, policy: null },
    { label: 'Any agent but the implementer', description: `a second agent reads every change${mark(same({}))}`, policy: {} },
    {
      label: 'An agent on another host',
      description: `e.g. Codex reviews what Claude Code made${mark(same({ otherHost: true }))}`,
      policy: { otherHost: true },
    },
    ...installed.map((h) => ({
      label: `Agents on ${h.name}`,
      description: `${h.name} reviews every change${mark(same({ reviewerHost: h.id, otherHost: true }))}`,
      policy: { reviewerHost: h.id, otherHost: true } as Partial<ReviewPolicy>,
    })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title,
    placeHolder: 'Who reviews each change its agents ship, before it is done?',
    ignoreFocusOut: true,
  });
  if (!picked) return undefined;
  if (picked.policy === null) return null;
  if (!askRounds) return reviewPolicy(picked.policy);
  const rounds = await vscode.window.showQuickPick(
    [1, 2, 3, 5].map((n) => ({ label: `${n} round${n === 1 ? '' : 's'}`, description: n === (now?.maxRounds ?? 3) ? 'now' : '', n })),
    { title, placeHolder: 'Rounds of changes asked before you decide (the change then waits for you)', ignoreFocusOut: true },
  );
  if (!rounds) return undefined;
  const landing = await vscode.window.showQuickPick(
    [
      { label: 'Wait for me to land it', description: now?.autoLand ? '' : 'now', autoLand: false },
      {
        label: 'Land it on its own once its acceptance check passed',
        description: `merged into its base, recorded as done on your decision${now?.autoLand ? ' · now' : ''}`,
        autoLand: true,
      },
    ],
    { title, placeHolder: 'When its reviewer approves a change made in a worktree', ignoreFocusOut: true },
  );
  if (!landing) return undefined;
  return reviewPolicy({ ...picked.policy, maxRounds: rounds.n, blocking: now?.blocking, autoLand: landing.autoLand });
}

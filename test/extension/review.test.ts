import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Goal, Todo } from '../../src/kernel/model';
import { createGoal, setGoalStatus } from '../../src/kernel/goals/goals';
import { getGoal } from '../../src/kernel/goals/goalQueries';
import { addTodo, shipTodo } from '../../src/kernel/todos/todos';
import { claimTodo } from '../../src/kernel/todos/claims';
import { addEvidence } from '../../src/kernel/evidence/evidence';
import { reviewRounds } from '../../src/kernel/todos/reviewQueries';
import { COMMANDS } from '../../src/extension/commands/commandIds';
import type { GoalsNode } from '../../src/extension/views/goalsTree';
import { app, otherWriter, until, withAnswers } from './support';

const label = (item: vscode.TreeItem) => (typeof item.label === 'string' ? item.label : (item.label?.label ?? ''));
const pickLabel = (text: string) => (items: readonly vscode.QuickPickItem[]) => {
  const item = items.find((i) => i.label === text);
  if (!item) throw new Error(`no pick item ${text} in ${items.map((i) => i.label).join(', ')}`);
  return item;
};

suite('peer review', () => {
  /** A goal with review on, and a todo claude implemented: its change waits in review. */
  async function changeInReview(title: string): Promise<{ goal: Goal; todo: Todo }> {
    const loopx = await app();
    const kernel = loopx.session.requireKernel();
    const goal = createGoal(kernel, { title, turnsPerWindow: 10 });
    const { result } = await withAnswers(
      { picks: [pickLabel('Any agent but the implementer'), pickLabel('2 rounds'), pickLabel('Wait for me to land it')] },
      async () => vscode.commands.executeCommand<Goal>(COMMANDS.setGoalReview, goal.id),
    );
    assert.deepEqual(result.review, {
      reviewerHost: null,
      reviewerAgent: null,
      otherHost: false,
      maxRounds: 2,
      blocking: ['P0', 'P1', 'P2'],
    });
    const todo = addTodo(kernel, { goalId: goal.id, title: `${title}: the change` });
    const claude = otherWriter('claude');
    try {
      claimTodo(claude, todo.id);
      addEvidence(claude, { todoId: todo.id, summary: 'fixtures pass' });
      shipTodo(claude, todo.id, { validation: 'ran the fixtures' });
    } finally {
      claude.close();
    }
    return { goal, todo };
  }

  test("Set Review… is the person's decision (VS Code's channel); a shipped change waits In review in the Goals view", async () => {
    const loopx = await app();
    const { goal, todo } = await changeInReview('Reviewed parser');
    const kernel = loopx.session.requireKernel();
    const event = kernel.db.prepare(`SELECT data, actor_kind FROM events WHERE kind = 'goal.review_set' AND goal_id = ?`).get(goal.id);
    assert.equal(event?.actor_kind, 'human');
    assert.equal((JSON.parse(String(event?.data)) as { channel?: string }).channel, 'vscode');
    const tree = loopx.goalsTree;
    const group = await until(() => {
      const node = tree.getChildren().find((n) => n.kind === 'goal' && n.goal.id === goal.id);
      return node && tree.getChildren(node).find((g) => label(tree.getTreeItem(g)) === 'In review');
    }, 'the goal’s In review group');
    const row = tree.getTreeItem(tree.getChildren(group)[0] as GoalsNode);
    assert.equal(label(row), `${todo.id} ${todo.title}`);
    assert.equal(row.contextValue, 'loopx:todo:in_review');
    assert.match(String(row.description), /^waits for a reviewer · review round 1 · P2/);
    // No review turns it off, as the person's decision too.
    const off = await withAnswers({ picks: [pickLabel('No review')] }, async () =>
      vscode.commands.executeCommand<Goal>(COMMANDS.setGoalReview, goal.id),
    );
    assert.equal(off.result.review, null);
    // Landing approved changes on their own is a third answer, the person's too.
    const landing = await withAnswers(
      {
        picks: [
          pickLabel('An agent on another host'),
          pickLabel('3 rounds'),
          pickLabel('Land it on its own once its acceptance check passed'),
        ],
      },
      async () => vscode.commands.executeCommand<Goal>(COMMANDS.setGoalReview, goal.id),
    );
    assert.deepEqual(landing.result.review, {
      reviewerHost: null,
      reviewerAgent: null,
      otherHost: true,
      maxRounds: 3,
      blocking: ['P0', 'P1', 'P2'],
      autoLand: true,
    });
    setGoalStatus(kernel, goal.id, 'done');
  });

  test('Approve the Change… asks in a modal, then ships it as the person’s verdict; Escape changes nothing', async () => {
    const loopx = await app();
    const { goal, todo } = await changeInReview('Approved by a person');
    const kernel = loopx.session.requireKernel();
    const cancelled = await withAnswers({ warnings: [undefined] }, async () =>
      vscode.commands.executeCommand(COMMANDS.approveReview, todo.id),
    );
    assert.match(
      cancelled.prompts[0] ?? '',
      new RegExp(`warning \\(modal\\): Approve the change of ${todo.id} .*claude made it \\(review round 1\\)`),
    );
    assert.equal(
      kernel.read((db) => db.prepare('SELECT status FROM todos WHERE id = ?').get(todo.id)?.status),
      'in_review',
    );
    const { result } = await withAnswers({ warnings: ['Approve'], inputs: ['read the diff'] }, async () =>
      vscode.commands.executeCommand<Todo>(COMMANDS.approveReview, todo.id),
    );
    assert.equal(result.status, 'shipped');
    assert.deepEqual(
      kernel.read((db) => reviewRounds(db, todo.id)).map((r) => [r.verdict, r.byPerson, r.summary]),
      [['approve', true, 'read the diff']],
    );
    setGoalStatus(kernel, goal.id, 'done');
  });

  test('View the Change opens the change as its reviewer reads it, in a read-only document', async () => {
    const loopx = await app();
    const { goal, todo } = await changeInReview('Viewed by a person');
    const editor = await vscode.commands.executeCommand<vscode.TextEditor>(COMMANDS.viewReviewChange, todo.id);
    const text = editor.document.getText();
    assert.equal(editor.document.uri.scheme, 'loopx-review-change');
    assert.match(text, new RegExp(`^# The change of ${todo.id} under review`));
    assert.match(text, /Implemented by claude\. It says it checked:\n\n> ran the fixtures/);
    assert.match(text, /## The change/);
    assert.equal(editor.document.languageId, 'markdown');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    setGoalStatus(loopx.session.requireKernel(), goal.id, 'done');
  });

  test('Send Back with Changes… asks what should change; it becomes the implementer’s continuation', async () => {
    const loopx = await app();
    const { goal, todo } = await changeInReview('Sent back by a person');
    const kernel = loopx.session.requireKernel();
    const { result } = await withAnswers({ inputs: ['name the parser after the format'] }, async () =>
      vscode.commands.executeCommand<Todo>(COMMANDS.requestChanges, todo.id),
    );
    assert.equal(result.status, 'open');
    assert.match(result.continuation, /^Review by ada asked for changes: name the parser after the format/);
    assert.equal(kernel.read((db) => getGoal(db, goal.id)).review?.maxRounds, 2);
    setGoalStatus(kernel, goal.id, 'done');
  });
});
